package blksim.queues.fs.aio;

import blksim.queues.block.bio.Bio;
import java.util.List;

/**
 * What a task's libaio syscall does next where its path leaves fs/aio.c (5.16): a call into another
 * component (the raw block device's bio set, its queues), a sleep, or the syscall's return. {@link
 * IoSubmit} and {@link ReadEvents} return one at each such point; the CPU makes the call (a
 * message) and brings its answer back to the method each record names.
 */
public sealed interface AioCall {
  /** When the call is made, in virtual time. */
  long atPs();

  /**
   * {@code bio_alloc_kiocb} of {@code nr} bios from the raw block device's bio_set ({@code
   * blkdev_dio_pool}), one for each iocb, on behalf of {@code __blkdev_direct_IO_async}; {@code
   * allocCache} says whether they may come from its per-CPU cache ({@code IOCB_ALLOC_CACHE}). The
   * bios go to {@link IoSubmit#bioAllocated}.
   */
  record AllocBios(long atPs, int nr, boolean allocCache) implements AioCall {}

  /**
   * {@code submit_bio} of each bio of the batch, set up, under a plug of {@code plugNrIos}; {@code
   * reqs} are their requests, in the same order. The CPU submits them to each hardware queue in
   * turn, hands each return to {@link IoSubmit#submitBioReturned}, and ends with {@link
   * IoSubmit#ioSubmitReturned}.
   */
  record SubmitBios(long atPs, List<Bio> bios, List<AioKiocb> reqs, int plugNrIos)
      implements AioCall {}

  /** {@code io_submit} returns to user space. */
  record Return(long atPs) implements AioCall {}

  /** {@code io_getevents} returns to user space with {@code events}, copied out of the ring. */
  record Events(long atPs, List<IoEvent> events) implements AioCall {}

  /**
   * {@code read_events} sleeps on {@code ctx->wait} from {@code atPs}, the CPU idle, until an
   * {@code aio_complete} wakes the task ({@link ReadEvents#scheduled}).
   */
  record Sleep(long atPs) implements AioCall {}

  /**
   * {@code read_events} waits for more events than can come: t/io_uring would sleep here until it
   * is killed; blksim ends the thread at {@code atPs}.
   *
   * @param minNr the {@code min_nr} it asked for
   * @param available the events in the ring, all that will come
   */
  record Hang(long atPs, int minNr, int available) implements AioCall {}
}
