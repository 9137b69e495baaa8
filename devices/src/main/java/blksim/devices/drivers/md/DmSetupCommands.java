package blksim.devices.drivers.md;

import blksim.queues.books.Books;
import java.util.ArrayDeque;

/**
 * The commands of one {@code dmsetup} process, as a script runs them: {@code dmsetup suspend
 * --noflush} of a DM device at a virtual time, a sleep, then {@code dmsetup resume}
 * (drivers/md/dm-ioctl.c's {@code do_suspend} and {@code do_resume}; docs/kernel.md section 14).
 * Each command's time wakes the process, which runs its commands when its CPU picks it: one after
 * another, each suspend through to its sleep, a resume through to the end of its md->wq work. A
 * suspend whose time comes during another's sleep waits behind that one's resume, and so does one
 * that comes while a resume's work runs.
 *
 * <p>Plain Java: the CPU's task sends what each step asks ({@link Step}) and brings back the
 * resume's end.
 */
public final class DmSetupCommands {
  /** What the process does next. */
  public sealed interface Step permits Suspend, Resume, Sleep {}

  /** {@code dmsetup suspend --noflush}, then a sleep of {@code sleepPs} before the resume. */
  public record Suspend(long sleepPs) implements Step {}

  /** {@code dmsetup resume}: md->wq submits what the suspend deferred; its end comes back. */
  public record Resume() implements Step {}

  /** Nothing is left to run: it sleeps until the next command's time. */
  public record Sleep() implements Step {}

  private static final Resume RESUME = new Resume();
  private static final Sleep SLEEP = new Sleep();

  /**
   * The commands whose time came, not yet run, oldest first but for a resume, which goes first: a
   * suspend's sleep before its resume, or -1 for a resume.
   */
  private final ArrayDeque<Long> due = new ArrayDeque<>();

  private int suspends;
  private int resumes;
  private boolean resuming;

  /** A command woke it and it has not run since. */
  private boolean woken;

  /** It sleeps between a suspend and its resume: a later suspend waits behind the resume. */
  private boolean awaitingResume;

  /** When it last went to sleep: its CPU is free of it from then. */
  private long freeAtPs;

  /**
   * The time of a command came: a suspend followed by a sleep of {@code forPs}, or, with {@code
   * forPs} -1, the resume.
   *
   * @return whether this woke the process: its CPU runs it when the run queue picks it
   */
  public boolean command(long forPs) {
    if (forPs < 0) {
      due.addFirst(forPs); // the resume goes before a suspend that came during the sleep
      awaitingResume = false;
    } else {
      due.add(forPs);
    }
    if (woken || resuming || awaitingResume) {
      return false;
    }
    woken = true;
    return true;
  }

  /** Switched in after a wake-up: it runs its commands ({@link #next}). */
  public void switchedIn() {
    woken = false;
  }

  /** The next command that came, at {@code t}; or, with none left, its sleep from {@code t}. */
  public Step next(long t) {
    Long sleep = due.poll();
    if (sleep == null) {
      freeAtPs = t;
      return SLEEP;
    }
    if (sleep >= 0) {
      suspends++;
      awaitingResume = true;
      freeAtPs = t; // nanosleep
      return new Suspend(sleep);
    }
    resumes++;
    resuming = true;
    return RESUME;
  }

  /** The resume's md->wq work, and the puts of what it ended at once, are done. */
  public void resumed() {
    resuming = false;
  }

  /** Its resume's call is out: the CPU is busy with it. */
  public boolean inFlight() {
    return resuming;
  }

  /** Woken by a command and not yet switched in. */
  public boolean woken() {
    return woken;
  }

  /** From when its CPU is free of it: asleep since its last command. */
  public long freeAtPs() {
    return freeAtPs;
  }

  /** Every suspend was followed by its resume, and the resume's work finished. */
  public void audit(Books books, String name) {
    books.drainedEqual(suspends, resumes, name + ": suspends vs resumes");
    books.drained(
        !resuming && !awaitingResume && due.isEmpty(),
        name + ": a command, or the resume's work, never finished");
  }
}
