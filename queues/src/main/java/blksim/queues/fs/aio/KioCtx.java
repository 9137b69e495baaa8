package blksim.queues.fs.aio;

import blksim.queues.books.Books;
import blksim.queues.books.InvariantBroken;
import blksim.queues.io_uring.Sqe;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * Models {@code struct kioctx} (fs/aio.c): a libaio context, its requests and its ring of events.
 * {@code io_submit} takes a request per iocb ({@code aio_get_req}); {@code aio_complete} puts its
 * event in the ring and the request goes ({@code iocb_destroy}); {@code io_getevents} copies events
 * out ({@code aio_read_events_ring}).
 */
public final class KioCtx {
  private final int nrEvents;
  private final ArrayDeque<IoEvent> ring = new ArrayDeque<>();
  private long submitted;
  private long completed;
  private long read;

  /**
   * @param nrEvents the ring's size, {@code io_setup}'s {@code nr_events}
   */
  public KioCtx(int nrEvents) {
    this.nrEvents = nrEvents;
  }

  /**
   * {@code aio_get_req}: a request for {@code iocb}.
   *
   * @throws InvariantBroken if more requests are out than the ring has events for
   */
  public AioKiocb getReq(Sqe iocb) {
    if (submitted - read >= nrEvents) {
      throw new InvariantBroken("aio: more requests than the ring's " + nrEvents + " events");
    }
    submitted++;
    return new AioKiocb(this, iocb);
  }

  /** {@code aio_complete}: the request's event goes into the ring. */
  public void complete(AioKiocb req, long res) {
    if (req.ctx() != this) {
      throw new InvariantBroken("aio: an event of another context's request");
    }
    if (completed >= submitted) {
      throw new InvariantBroken("aio: a completion of a request never submitted");
    }
    completed++;
    ring.addLast(new IoEvent(req.iocb().userData(), res, req.iocb().issuedAtPs()));
  }

  /** Requests submitted and not completed yet. */
  public long inFlight() {
    return submitted - completed;
  }

  /** Events in the ring, not yet read. */
  public int available() {
    return ring.size();
  }

  /** {@code aio_read_events_ring}: up to {@code nr} events, oldest first. */
  public List<IoEvent> readEvents(int nr) {
    List<IoEvent> out = new ArrayList<>();
    while (out.size() < nr && !ring.isEmpty()) {
      out.add(ring.pollFirst());
    }
    read += out.size();
    return out;
  }

  /** Events io_getevents copied out. */
  public long read() {
    return read;
  }

  public long submitted() {
    return submitted;
  }

  public long completed() {
    return completed;
  }

  /** Every request submitted completed once; what was not read is still in the ring. */
  public void audit(Books books, String name) {
    books.drainedEqual(submitted, completed, name + ": aio requests submitted vs completed");
    books.drainedEqual(completed, read + ring.size(), name + ": aio events posted vs read or left");
  }
}
