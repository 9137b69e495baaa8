package blksim.queues.block.mq_deadline;

import blksim.queues.block.blk_mq.Request;
import blksim.queues.books.Books;
import blksim.queues.books.InvariantBroken;
import java.util.ArrayDeque;
import java.util.Iterator;
import java.util.Map;
import java.util.TreeMap;

/**
 * Models mq-deadline's {@code struct deadline_data} (block/mq-deadline.c 5.16) for reads of one
 * priority class: the sector-sorted tree and the FIFO of the requests inserted and not yet
 * dispatched, {@code next_rq} and the batch count. Reads only: t/io_uring writes nothing, so the
 * write side and its starvation count never act.
 *
 * <p>{@code __dd_dispatch_request}: while a batch runs ({@code batching < fifo_batch}) and a next
 * request in sector order exists, that one; otherwise the FIFO's head if its deadline passed or no
 * next request exists, else the next one, and a new batch starts. The deadline ({@code
 * read_expire}, 500 ms) is kept in virtual time.
 */
public final class MqDeadline {
  /** {@code fifo_batch}: requests dispatched in sector order before the FIFO is looked at. */
  public static final int FIFO_BATCH = 16;

  /** {@code read_expire}: HZ / 2. */
  public static final long READ_EXPIRE_PS = 500_000_000_000L;

  private record Key(long sector, long seq) implements Comparable<Key> {
    @Override
    public int compareTo(Key o) {
      int c = Long.compare(sector, o.sector);
      return c != 0 ? c : Long.compare(seq, o.seq);
    }
  }

  private record Queued(Request rq, Key key, long expiresPs) {}

  private final TreeMap<Key, Queued> sortList = new TreeMap<>();
  private final ArrayDeque<Queued> fifo = new ArrayDeque<>();
  private Key nextRq;
  private int batching;
  private long seq;
  private long inserted;
  private long dispatched;
  private long completed;

  /**
   * {@code dd_insert_request}: into the sort tree ({@code elv_rb_add}) and at the FIFO's tail.
   *
   * @return the tree levels {@code elv_rb_add} walked down
   */
  public int insert(Request rq, long atPs) {
    if (rq.bio() == null) {
      throw new InvariantBroken("mq-deadline: request tag " + rq.tag() + " inserted without a bio");
    }
    int levels = levels(sortList.size());
    Queued q = new Queued(rq, new Key(rq.bio().sector(), seq++), atPs + READ_EXPIRE_PS);
    sortList.put(q.key(), q);
    fifo.addLast(q);
    inserted++;
    return levels;
  }

  /** The depth of a red-black tree of {@code n} nodes that an insert walks: about log2(n + 1). */
  static int levels(int n) {
    return 32 - Integer.numberOfLeadingZeros(n);
  }

  /** {@code dd_dispatch_request}: the next request to dispatch, or null when none is queued. */
  public Request dispatch(long atPs) {
    if (sortList.isEmpty()) {
      return null;
    }
    Queued q;
    if (nextRq != null && batching < FIFO_BATCH) {
      q = sortList.get(nextRq);
    } else {
      Queued head = fifo.peekFirst();
      q = nextRq == null || atPs >= head.expiresPs() ? head : sortList.get(nextRq);
      batching = 0;
    }
    batching++;
    // deadline_move_request: next_rq is the one after it in sector order; off the tree and FIFO
    Map.Entry<Key, Queued> after = sortList.higherEntry(q.key());
    nextRq = after == null ? null : after.getKey();
    sortList.remove(q.key());
    removeFromFifo(q);
    dispatched++;
    return q.rq();
  }

  private void removeFromFifo(Queued q) {
    for (Iterator<Queued> it = fifo.iterator(); it.hasNext(); ) {
      if (it.next() == q) {
        it.remove();
        return;
      }
    }
    throw new InvariantBroken("mq-deadline: request tag " + q.rq().tag() + " not on the FIFO");
  }

  /** {@code dd_finish_request}: the completed count. */
  public void finish() {
    completed++;
  }

  /** Requests inserted and not yet dispatched. */
  public int queued() {
    return sortList.size();
  }

  public long inserted() {
    return inserted;
  }

  /** Every request inserted was dispatched and finished; none is left in the scheduler. */
  public void audit(Books books, String name) {
    books.held(sortList.size(), name + ": requests left in mq-deadline");
    books.drainedEqual(
        inserted, dispatched, name + ": mq-deadline requests inserted vs dispatched");
    books.drainedEqual(
        dispatched, completed, name + ": mq-deadline requests dispatched vs finished");
  }
}
