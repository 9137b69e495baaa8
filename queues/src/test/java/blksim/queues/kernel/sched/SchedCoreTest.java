package blksim.queues.kernel.sched;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import blksim.queues.kernel.softirq.Ksoftirqd;
import blksim.queues.time.VirtualTime;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The rules of one CPU's schedule, without a topology: tasks, an interrupt path and the CPU's own
 * messages are stand-ins that write what was asked of them into one log, in order. A step's kind
 * says what it is: {@code reply} (a call's answer), {@code resume} (a return to user space), {@code
 * resched} (a {@code might_sleep} or {@code cond_resched}).
 */
class SchedCoreTest {
  private static final long US = VirtualTime.ps(1_000);
  private static final long MS = VirtualTime.ps(1_000_000);

  /** A hard interrupt's length here. */
  private static final long IRQ = US;

  /** A context switch's length here. */
  private static final long SWITCH = 2 * US;

  /** A worker's first {@code cond_resched} after its spin is cut, this late. */
  private static final long COND_RESCHED = 100;

  record Step(long atPs, int slot, String what) {}

  private final List<String> log = new ArrayList<>();

  /** A task's kind-free part: what it is asked is logged; what it does next, the test sets. */
  abstract class Fake implements SchedCore.Task<Step, List<String>> {
    final int slot;
    SchedEntity se;
    boolean inFlight;

    /** Whether it has a call out after it handles a step (else it sleeps, free from then). */
    boolean callsOn = true;

    long freeAt;
    boolean woken;
    boolean exiting;

    Fake(int slot) {
      this.slot = slot;
    }

    @Override
    public int slot() {
      return slot;
    }

    @Override
    public SchedEntity sched() {
      return se;
    }

    @Override
    public void sched(SchedEntity se) {
      this.se = se;
    }

    @Override
    public void resume(long t, List<String> out) {
      out.add(comm() + " resumes at " + t / US + "us");
      woken = false;
      inFlight = true;
    }

    @Override
    public void handle(Step m, List<String> out) {
      out.add(comm() + " " + m.what() + " at " + m.atPs() / US + "us");
      inFlight = callsOn;
      freeAt = m.atPs();
    }

    @Override
    public boolean inFlight() {
      return inFlight;
    }

    @Override
    public boolean woken() {
      return woken;
    }

    @Override
    public long freeAtPs() {
      return freeAt;
    }

    @Override
    public boolean exiting() {
      return exiting;
    }
  }

  /** A submitter thread: it schedules at its returns to user space and its might_sleeps. */
  final class Thread extends Fake implements SchedCore.UserThread<Step, List<String>> {
    Thread(int slot) {
      super(slot);
    }

    @Override
    public String comm() {
      return "thread" + slot;
    }

    @Override
    public boolean schedulesAt(Step m) {
      return !m.what().equals("reply");
    }

    @Override
    public boolean preemptibleAt(Step m) {
      return m.what().equals("resume");
    }

    @Override
    public boolean returnsToUserAt(Step m) {
      return m.what().equals("resume");
    }

    @Override
    public boolean waitsForItsWorkerHere() {
      return false;
    }

    @Override
    public long emptyEnters(long fromPs, long untilPs) {
      throw new AssertionError("no empty loop here");
    }

    @Override
    public void teardownPoll(long t, List<String> out) {
      out.add(comm() + " teardown polls at " + t / US + "us");
    }

    @Override
    public void waitsInTeardown() {
      log.add(comm() + " waits in its teardown");
    }
  }

  /** An io-wq worker: it schedules, and may be switched, at its cond_resched. */
  final class Worker extends Fake implements SchedCore.KernelThread<Step, List<String>> {
    long spinning = -1;
    boolean forMutex;
    boolean ownerRuns;

    Worker(int slot) {
      super(slot);
    }

    @Override
    public String comm() {
      return "worker" + slot;
    }

    @Override
    public boolean schedulesAt(Step m) {
      return m.what().equals("resched");
    }

    @Override
    public boolean preemptibleAt(Step m) {
      return m.what().equals("resched");
    }

    @Override
    public boolean waitsInterruptibly() {
      return forMutex;
    }

    @Override
    public long spinning() {
      return spinning;
    }

    @Override
    public long spinCut(long id, long at) {
      return ends("cut", id, at);
    }

    @Override
    public long spinSliceEnds(long id, long at) {
      return ends("slice ends", id, at);
    }

    private long ends(String how, long id, long at) {
      if (id != spinning) {
        return -1;
      }
      log.add(comm() + " spin " + id + " " + how + " at " + at / US + "us");
      spinning = -1;
      return at + COND_RESCHED;
    }

    @Override
    public boolean spinsOnRunningOwner() {
      return forMutex && ownerRuns;
    }

    @Override
    public void lockSleeps(long t) {
      log.add(comm() + " sleeps on the mutex at " + t / US + "us");
      inFlight = false;
      freeAt = t;
    }

    @Override
    public void interrupted(long ps) {
      log.add(comm() + " interrupted for " + ps / US + "us");
    }
  }

  /** The interrupt path: each hard interrupt or ksoftirqd run takes {@link #IRQ}, no call out. */
  class Irq implements SchedCore.Irq<String, String, List<String>> {
    boolean softirq;

    @Override
    public long start(long t, List<String> fired, PendingTicks.Ticks ticks, List<String> out) {
      softirq = false;
      out.add("irq at " + t / US + "us: " + fired + ", " + ticks.ticks() + " tick(s)");
      return t + IRQ;
    }

    @Override
    public long more(long t, List<String> fired, List<String> out) {
      out.add("irq more at " + t / US + "us: " + fired);
      return t + IRQ;
    }

    @Override
    public long startSoftirq(long t, List<String> raised, boolean preempts, List<String> out) {
      softirq = true;
      out.add("ksoftirqd at " + t / US + "us: " + raised + (preempts ? ", preempting" : ""));
      return t + IRQ;
    }

    @Override
    public long moreSoftirq(long t, List<String> raised, List<String> out) {
      out.add("ksoftirqd more at " + t / US + "us: " + raised);
      return t + IRQ;
    }

    @Override
    public long softirqSwitchBack(long t) {
      log.add("switch back at " + t / US + "us");
      return t + SWITCH;
    }

    @Override
    public boolean inSoftirq() {
      return softirq;
    }
  }

  /** The CPU's steps and messages. */
  final class Effects implements SchedCore.Effects<Step, List<String>> {
    @Override
    public long at(Step m) {
      return m.atPs();
    }

    @Override
    public Step retimed(Step m, long t) {
      return new Step(t, m.slot(), m.what());
    }

    @Override
    public Step returnsToUser(long t, int slot) {
      return new Step(t, slot, "resume");
    }

    @Override
    public Step mightSleep(long t, int slot) {
      return new Step(t, slot, "resched");
    }

    @Override
    public void sliceEndsAt(long at, long spin, int slot, List<String> out) {
      out.add("slice of spin " + spin + " of slot " + slot + " ends at " + at / US + "us");
    }

    @Override
    public void tickAt(TickSched next, List<String> out) {
      out.add("tick rearmed for " + next.atPs() / US + "us");
    }

    @Override
    public long contextSwitch(long t) {
      log.add("switch at " + t / US + "us");
      return SWITCH;
    }
  }

  private SchedCore<Step, List<String>, String, String> cpu(Fake... tasks) {
    return new SchedCore<>(
        "cpu0",
        List.of(tasks),
        new Irq(),
        new Ksoftirqd<>(),
        new Rq(1, new SchedTick(4 * MS, 0)),
        new Effects());
  }

  /** A tick at {@code at}, 4 ms apart up to 1 s, without load balance or vmstat. */
  private static TickSched tickAt(long at) {
    return new TickSched(at, 4 * MS, 1000 * MS, 0, 0, 0, 0);
  }

  @Test
  void anIdleCpuTakesATimerInterruptAtOnce() {
    Thread a = new Thread(0);
    var cpu = cpu(a);
    cpu.start(0, log);
    a.callsOn = false;
    cpu.step(0, new Step(2 * US, 0, "reply"), log); // it sleeps
    log.clear();
    cpu.timerFired("timer", 5 * US, log);
    assertEquals(List.of("irq at 5us: [timer], 0 tick(s)"), log);
    assertTrue(cpu.idle(), cpu.leftOver());
  }

  @Test
  void aTimerDuringACallRunsAtTheCallsEndAndTheCallGoesOnAfterIt() {
    Thread a = new Thread(0);
    var cpu = cpu(a);
    cpu.start(0, log);
    cpu.timerFired("timer", 1 * US, log);
    assertEquals(List.of("thread0 resumes at 0us"), log, "a call is never cut");
    assertFalse(cpu.idle());
    cpu.step(0, new Step(3 * US, 0, "reply"), log);
    assertEquals(
        List.of("thread0 resumes at 0us", "irq at 3us: [timer], 0 tick(s)", "thread0 reply at 4us"),
        log);
  }

  @Test
  void aTickDuringACallRunsInTheInterruptAtItsEndAndIsRearmed() {
    Thread a = new Thread(0);
    var cpu = cpu(a);
    cpu.start(0, log);
    cpu.tick(tickAt(4 * MS), log);
    cpu.step(0, new Step(5 * MS, 0, "reply"), log);
    assertEquals(
        List.of(
            "thread0 resumes at 0us",
            "tick rearmed for 8000us",
            "irq at 5000us: [], 1 tick(s)",
            "thread0 reply at 5001us"),
        log);
  }

  @Test
  void anIdleCpuTakesNoTickAndAnEndedThreadsCpuStopsIt() {
    Thread a = new Thread(0);
    var cpu = cpu(a);
    cpu.start(0, log);
    a.callsOn = false;
    cpu.step(0, new Step(2 * US, 0, "reply"), log);
    log.clear();
    cpu.tick(tickAt(4 * MS), log);
    assertEquals(List.of("tick rearmed for 8000us"), log, "idle: no tick work waits");
    assertTrue(cpu.idle(), cpu.leftOver());
    log.clear();
    a.exiting = true;
    cpu.tick(tickAt(8 * MS), log);
    assertEquals(List.of(), log, "its threads ended: the tick stops");
  }

  @Test
  void ksoftirqdRunsWhereTheTaskSchedulesNotAtAnyReply() {
    Thread a = new Thread(0);
    var cpu = cpu(a);
    cpu.start(0, log);
    cpu.softirqRaised("rq1", 1 * US, log);
    cpu.step(0, new Step(2 * US, 0, "reply"), log);
    assertEquals(List.of("thread0 resumes at 0us", "thread0 reply at 2us"), log);
    cpu.step(0, new Step(3 * US, 0, "resume"), log);
    assertEquals(
        List.of(
            "thread0 resumes at 0us",
            "thread0 reply at 2us",
            "ksoftirqd at 3us: [rq1], preempting",
            "switch back at 4us",
            "thread0 resume at 6us"),
        log);
    assertTrue(cpu.idle() || a.inFlight, cpu.leftOver());
  }

  @Test
  void anIdleCpuRunsARaisedKsoftirqdAtOnce() {
    Thread a = new Thread(0);
    var cpu = cpu(a);
    cpu.start(0, log);
    a.callsOn = false;
    cpu.step(0, new Step(2 * US, 0, "reply"), log);
    log.clear();
    cpu.softirqRaised("rq1", 7 * US, log);
    assertEquals(List.of("ksoftirqd at 7us: [rq1]"), log, "no task to preempt: no switch back");
  }

  @Test
  void aTaskAloneIsNeverSwitched() {
    Thread a = new Thread(0);
    var cpu = cpu(a);
    cpu.start(0, log);
    for (long t = 1; t <= 50; t++) {
      cpu.step(0, new Step(t * MS, 0, "resume"), log);
    }
    assertFalse(log.stream().anyMatch(l -> l.startsWith("switch")), log.toString());
    assertEquals(Long.MAX_VALUE, cpu.reschedTick(50 * MS));
  }

  @Test
  void twoThreadsSwitchAtTheFirstReturnToUserAfterTheTickThatEndsTheSlice() {
    Thread a = new Thread(0);
    Thread b = new Thread(1);
    var cpu = cpu(a, b);
    cpu.start(0, log);
    assertEquals(4 * MS, cpu.reschedTick(1 * MS), "a 3 ms slice, seen by the tick at 4 ms");
    cpu.step(0, new Step(3900 * US, 0, "resume"), log);
    cpu.step(0, new Step(5 * MS, 0, "reply"), log); // a call's end is no point of preemption
    cpu.step(0, new Step(6 * MS, 0, "resume"), log);
    assertEquals(
        List.of(
            "thread0 resumes at 0us",
            "thread0 resume at 3900us",
            "thread0 reply at 5000us",
            "switch at 6000us",
            "thread1 resumes at 6002us"),
        log);
    log.clear();
    // thread1's slice ends at the tick of 12 ms; thread0 goes on with the step it was switched at
    cpu.step(1, new Step(13 * MS, 1, "resume"), log);
    assertEquals(
        List.of("switch at 13000us", "thread0 resume at 13002us"), log, "parked, then picked");
    assertTrue(cpu.runQueue().nrRunning() == 2);
  }

  @Test
  void aSpinningWorkerIsCutAtItsNextCondReschedWhereTheInterruptRuns() {
    Worker w = new Worker(0);
    var cpu = cpu(w);
    cpu.wake(w, 0, log);
    w.spinning = 7;
    cpu.timerFired("timer", 1 * US, log);
    assertEquals(
        List.of(
            "worker0 resumes at 0us",
            "worker0 spin 7 cut at 1us",
            "irq at 1us: [timer], 0 tick(s)",
            "worker0 resched at 2us"),
        log);
  }

  @Test
  void aWorkerSpinningForAMutexSleepsOnItWhenAWokenThreadPreemptsIt() {
    Thread a = new Thread(0);
    Worker w = new Worker(1);
    var cpu = cpu(a, w);
    cpu.start(0, log);
    a.callsOn = false;
    cpu.step(0, new Step(1 * MS, 0, "reply"), log); // the thread sleeps
    cpu.wake(w, 2 * MS, log); // the worker runs, and spins for the lock its thread's CPU holds
    w.forMutex = true;
    w.ownerRuns = true;
    log.clear();
    a.woken = true;
    cpu.wake(a, 3 * MS, log);
    assertEquals(
        List.of("worker1 sleeps on the mutex at 3000us", "thread0 resumes at 3000us"),
        log,
        "the sleeper woken has the lower vruntime: it preempts the spinner, which sleeps");
  }

  @Test
  void anInterruptWhileAWorkerWaitsForAMutexIsTakenAtOnceAndCountedAgainstTheWait() {
    Worker w = new Worker(0);
    var cpu = cpu(w);
    cpu.wake(w, 0, log);
    w.forMutex = true; // asleep on it, or spinning while its owner does not run
    log.clear();
    cpu.timerFired("timer", 5 * US, log);
    assertEquals(List.of("irq at 5us: [timer], 0 tick(s)", "worker0 interrupted for 1us"), log);
  }

  @Test
  void aTaskThatSleepsForATagLetsTheInterruptsThatWaitedRun() {
    Thread a = new Thread(0);
    var cpu = cpu(a);
    cpu.start(0, log);
    cpu.timerFired("timer", 1 * US, log);
    a.callsOn = false;
    cpu.slept(0, new Step(2 * US, 0, "slept"), log);
    assertEquals(
        List.of("thread0 resumes at 0us", "thread0 slept at 2us", "irq at 2us: [timer], 0 tick(s)"),
        log);
    assertTrue(cpu.idle(), cpu.leftOver());
  }

  @Test
  void aTagFreedByThisCpusInterruptWakesTheTaskWhenTheInterruptIsOver() {
    Thread a = new Thread(0);
    Irq callOut =
        new Irq() {
          @Override
          public long start(long t, List<String> f, PendingTicks.Ticks k, List<String> out) {
            out.add("irq at " + t / US + "us, a call out");
            return -1; // its bios go back to their bio_set: it ends when the reply comes
          }
        };
    var cpu =
        new SchedCore<>(
            "cpu0",
            List.of(a),
            callOut,
            new Ksoftirqd<String>(),
            new Rq(1, new SchedTick(4 * MS, 0)),
            new Effects());
    cpu.start(0, log);
    cpu.timerFired("timer", 1 * US, log);
    a.callsOn = false;
    cpu.slept(0, new Step(2 * US, 0, "slept"), log);
    cpu.tagWoken(0, new Step(3 * US, 0, "woken"), log);
    assertFalse(cpu.idle(), "in an interrupt still: " + cpu.leftOver());
    cpu.irqReturned(4 * US, log);
    assertEquals(
        List.of(
            "thread0 resumes at 0us",
            "thread0 slept at 2us",
            "irq at 2us, a call out",
            "thread0 woken at 4us"),
        log);
  }

  @Test
  void aTaskIsInItsOwnSlot() {
    Thread a = new Thread(1);
    try {
      cpu(a);
    } catch (IllegalArgumentException e) {
      assertEquals("cpu0: thread1 not in slot 0", e.getMessage());
      return;
    }
    throw new AssertionError("a task out of its slot was taken");
  }
}
