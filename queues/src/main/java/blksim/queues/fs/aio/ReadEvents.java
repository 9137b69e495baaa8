package blksim.queues.fs.aio;

import blksim.queues.cost.Charger;
import blksim.queues.cost.CpuTime;
import blksim.queues.cost.KernelFn;
import java.util.List;

/**
 * One task's {@code io_getevents(2)} on its CPU (fs/aio.c 5.16; docs/kernel.md section 11): the
 * syscall's own work ({@code lookup_ioctx}), then {@code read_events}. In the kernel each look of
 * {@code read_events} is {@code aio_read_events}: one call of {@code aio_read_events_ring}, which
 * copies out whatever events the ring holds, up to {@code nr - *i}, and adds them to {@code *i};
 * the look is done once {@code *i >= min_nr}, else the task sleeps on {@code ctx->wait} until an
 * {@code aio_complete} wakes it to look again. t/io_uring asks for as many as it waits for ({@code
 * min_nr = nr = to_wait}).
 *
 * <p>A simplification of blksim: a look copies nothing until the ring holds {@code min_nr} events,
 * then all {@code min_nr} at once, and {@code aio_read_events_ring} is charged once per event
 * copied, not once per look; the looks that find fewer than {@code min_nr} charge none. The events
 * and the sleeps are the kernel's (with {@code min_nr = nr} it returns exactly {@code min_nr},
 * oldest first, after as many sleeps); when they leave the ring and what the copies cost are not.
 *
 * <p>Each method charges what the model runs to the task's CPU and returns where the path leaves
 * fs/aio.c ({@link AioCall}).
 */
public final class ReadEvents {
  /** io_getevents itself, per call. */
  public static final KernelFn[] IO_GETEVENTS_PATH = IoSubmit.syscallPath(KernelFn.IO_GETEVENTS);

  private final Charger charger;
  private final int cpu;
  private final KioCtx ctx;

  /** The {@code min_nr} of the call in progress. */
  private int minNr;

  /**
   * @param charger the charger of the task's CPU, {@code cpu}
   * @param ctx the task's libaio context
   */
  public ReadEvents(Charger charger, int cpu, KioCtx ctx) {
    this.charger = charger;
    this.cpu = cpu;
    this.ctx = ctx;
  }

  /** io_getevents at {@code t}, for {@code minNr} events ({@code nr} as many): then read_events. */
  public AioCall ioGetevents(int minNr, long t) {
    this.minNr = minNr;
    return readEvents(t + charger.charge(cpu, CpuTime.SUBMIT, IO_GETEVENTS_PATH, 1));
  }

  /**
   * The task that {@code aio_complete} woke is switched back in at {@code t}: {@code schedule()}
   * returns, and read_events looks at the ring again.
   */
  public AioCall scheduled(long t) {
    return readEvents(schedule(t));
  }

  /**
   * A look of {@code read_events} at {@code t}. The kernel's {@code aio_read_events} would copy
   * whatever the ring holds and sleep while {@code *i < min_nr}; this one, blksim's simplification
   * (see the class), copies nothing while the ring holds fewer than {@code min_nr} and sleeps until
   * a completion wakes it, and once it holds them copies {@code min_nr}, charging {@code
   * aio_read_events_ring} per event copied. One that waits for more than the ring has and its
   * requests in flight can bring would sleep for good ({@link AioCall.Hang}).
   */
  AioCall readEvents(long t) {
    if (ctx.available() + ctx.inFlight() < minNr) {
      return new AioCall.Hang(t, minNr, ctx.available());
    }
    if (ctx.available() < minNr) {
      return new AioCall.Sleep(schedule(t));
    }
    // all min_nr in one copy, charged per event: the kernel's looks copy as events come
    List<IoEvent> events = ctx.readEvents(minNr);
    t += charger.charge(cpu, CpuTime.SUBMIT, KernelFn.AIO_READ_EVENTS_RING, events.size());
    return new AioCall.Events(t, events);
  }

  private long schedule(long t) {
    return t + charger.charge(cpu, CpuTime.SUBMIT, KernelFn.SCHEDULE, 1);
  }
}
