package blksim.queues.block.blk_mq;

import java.util.ArrayList;
import java.util.List;

/**
 * Models {@code struct blk_plug} (block/blk-core.c, blk-mq.c of 5.16): requests gathered by one
 * task and dispatched together. {@code blk_add_rq_to_plug} flushes the list before adding a request
 * when it already holds {@code BLK_MAX_REQUEST_COUNT} (twice that when the plug spans several
 * queues); {@code blk_finish_plug} flushes the rest.
 */
public final class Plug {
  /** {@code BLK_MAX_REQUEST_COUNT}. */
  public static final int BLK_MAX_REQUEST_COUNT = 32;

  private final List<List<Request>> flushes = new ArrayList<>(1);
  private List<Request> mqList;

  /** A plug for a submission of about {@code nrBios} bios (its list is made to hold them). */
  public Plug(int nrBios) {
    this.mqList = new ArrayList<>(Math.min(Math.max(nrBios, 1), BLK_MAX_REQUEST_COUNT));
  }

  /** {@code blk_add_rq_to_plug}. */
  public void add(Request rq) {
    if (mqList.size() >= BLK_MAX_REQUEST_COUNT) {
      flush();
    }
    mqList.add(rq);
  }

  /** Requests plugged so far. */
  public int size() {
    int n = mqList.size();
    for (List<Request> f : flushes) {
      n += f.size();
    }
    return n;
  }

  /**
   * {@code blk_finish_plug}.
   *
   * @return the lists handed to the driver, one per {@code blk_mq_flush_plug_list}, in order
   */
  public List<List<Request>> finish() {
    if (!mqList.isEmpty()) {
      flush();
    }
    return flushes;
  }

  private void flush() {
    flushes.add(mqList);
    mqList = new ArrayList<>();
  }
}
