package blksim.queues.tiouring;

import java.util.ArrayList;
import java.util.List;

/**
 * How t/io_uring's {@code main} hands the files of its command line to its threads (fio
 * t/io_uring.c; docs/kernel.md section 1.2): {@code threads_per_f = nthreads / nfiles} (at least
 * 1), the first {@code nthreads - threads_per_f * nfiles} files one thread more, each file to that
 * many consecutive threads, wrapping; at most {@code MAX_FDS} files per thread.
 */
public final class FileAssignment {
  private FileAssignment() {}

  /** {@code MAX_FDS}: files one submitter can hold. */
  public static final int MAX_FDS = 16;

  /**
   * The files (indices into the command line's list) of each thread.
   *
   * @throws IllegalArgumentException if a thread would get more than {@link #MAX_FDS} files
   *     (t/io_uring prints "Max number of files (16) reached" and goes on without them)
   */
  public static List<List<Integer>> assign(int nthreads, int nfiles) {
    List<List<Integer>> files = new ArrayList<>();
    for (int t = 0; t < nthreads; t++) {
      files.add(new ArrayList<>());
    }
    int threadsPerF = nthreads / nfiles;
    int threadsRem = 0;
    if (threadsPerF == 0) {
      threadsPerF = 1;
    } else {
      threadsRem = nthreads - threadsPerF * nfiles;
    }
    int j = 0;
    for (int f = 0; f < nfiles; f++) {
      int limit = threadsPerF + (threadsRem > 0 ? 1 : 0);
      for (int k = 0; k < limit; k++) {
        List<Integer> mine = files.get((j + k) % nthreads);
        if (mine.size() == MAX_FDS) {
          throw new IllegalArgumentException("Max number of files (" + MAX_FDS + ") reached");
        }
        mine.add(f);
      }
      threadsRem--;
      j += limit;
    }
    return files;
  }
}
