package blksim.actors.cpu;

import blksim.actors.engine.Outbox;
import blksim.queues.cost.CpuTime;
import blksim.queues.io_uring.IoKiocb;
import blksim.queues.io_uring.Iopoll;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Other rings' requests that ended here, gathered by their ring's CPU and sent on together; the map
 * exists only once one has come, so that the common case (none) allocates nothing. Once sent it is
 * empty again.
 */
final class Elsewhere implements Iopoll.ForeignCompletions {
  private Map<Integer, List<Cpu.Completion>> byCpu;

  /** {@code req}, another ring's, ended with {@code res}. */
  @Override
  public void add(IoKiocb req, int res) {
    if (byCpu == null) {
      byCpu = new TreeMap<>();
    }
    byCpu.computeIfAbsent(req.owner(), k -> new ArrayList<>()).add(new Cpu.Completion(req, res));
  }

  /**
   * Each ring's CPU hears of its requests ({@link ThisCpu#sendElsewhere}).
   *
   * @return when this CPU is done with it
   */
  long send(ThisCpu c, long t, CpuTime what, Outbox out) {
    if (byCpu == null) {
      return t;
    }
    Map<Integer, List<Cpu.Completion>> all = byCpu;
    byCpu = null;
    return c.sendElsewhere(all, t, what, out);
  }
}
