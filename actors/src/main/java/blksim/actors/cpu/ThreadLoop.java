package blksim.actors.cpu;

import blksim.actors.engine.Outbox;
import blksim.actors.engine.SimMessage;
import blksim.queues.books.Books;

/**
 * One of t/io_uring's submitter loops on its CPU: io_uring's ({@link SubmitterPath}, nops
 * included), preadv2's ({@link SyncReadPath}) or libaio's ({@link AioPath}). The CPU starts it and
 * hands it the replies to its calls.
 */
interface ThreadLoop {
  /** The head of a pass of the loop, at {@code t}. */
  void pass(long t, Outbox out);

  /** The reply to the call the thread has out. */
  void handle(SimMessage m, Outbox out);

  /** The thread, woken from its sleep by an interrupt's completion, runs again at {@code t}. */
  void wake(long t, Outbox out);

  /** Checks what the loop's reads left in the kernel. */
  void audit(Books books, String name);
}
