package blksim.queues.io_uring;

import blksim.queues.block.bio.Bio;
import blksim.queues.block.bio.BioOwner;

/**
 * Models {@code struct io_kiocb}: one io_uring request in the kernel, from io_submit_sqes until its
 * CQE is posted. Objects are recycled through the ring's request cache.
 */
public final class IoKiocb implements BioOwner {
  /** Lifecycle of a request, checked by the books. */
  public enum State {
    FREE,
    IN_FLIGHT,
    COMPLETED
  }

  private final int id;
  private final int owner;
  private State state = State.FREE;
  private Sqe sqe;
  private int res;
  private Bio kiocbPrivate;
  private boolean completedElsewhere;
  private boolean atWorker;

  IoKiocb(int id, int owner) {
    this.id = id;
    this.owner = owner;
  }

  /** Whose ring this request belongs to: its CPU, or the number of a thread that shares one. */
  public int owner() {
    return owner;
  }

  void start(Sqe sqe) {
    this.sqe = sqe;
    this.state = State.IN_FLIGHT;
    this.res = 0;
    this.kiocbPrivate = null;
  }

  void complete(int res) {
    this.res = res;
    this.state = State.COMPLETED;
  }

  void completeElsewhere(int res) {
    complete(res);
    this.completedElsewhere = true;
  }

  /** Whether another CPU's poll completed it (its line then moved there and back). */
  public boolean completedElsewhere() {
    return completedElsewhere;
  }

  void free() {
    this.completedElsewhere = false;
    this.state = State.FREE;
    this.sqe = null;
    this.kiocbPrivate = null;
  }

  /** Whether io-wq's worker has it: punted, and not yet ended or on the IOPOLL list. */
  public boolean atWorker() {
    return atWorker;
  }

  public void setAtWorker(boolean atWorker) {
    this.atWorker = atWorker;
  }

  public int id() {
    return id;
  }

  public State state() {
    return state;
  }

  public Sqe sqe() {
    return sqe;
  }

  public int res() {
    return res;
  }

  /** {@code kiocb->private}: the bio that polling looks at ({@code bio_poll} of its cookie). */
  public Bio kiocbPrivate() {
    return kiocbPrivate;
  }

  public void setKiocbPrivate(Bio p) {
    this.kiocbPrivate = p;
  }
}
