package blksim.queues.cost;

/** What a CPU's time was spent on, for the per-CPU split of a run. */
public enum CpuTime {
  /** The submitter's task: user space, the syscall, submission, completions run in task context. */
  SUBMIT("submit"),
  /** io_do_iopoll and the completions it reaps. */
  POLL("poll"),
  /** Hard and soft interrupt handlers. */
  IRQ("irq"),
  /** Spinning for a lock another CPU holds. */
  LOCK_WAIT("lock wait"),
  /** Kernel threads that preempt the submitter: the vmstat kworker. */
  KWORKER("kworker", false),
  /** BLOCK_SOFTIRQ run by the CPU's ksoftirqd thread, and the switches to it and back. */
  KSOFTIRQD("ksoftirqd", false);

  private final String label;
  private final boolean alwaysShown;

  CpuTime(String label) {
    this(label, true);
  }

  CpuTime(String label, boolean alwaysShown) {
    this.label = label;
    this.alwaysShown = alwaysShown;
  }

  public String label() {
    return label;
  }

  /** Whether code run for it is in interrupt context ({@code in_interrupt()}): hard or soft. */
  public boolean inInterrupt() {
    return this == IRQ || this == KSOFTIRQD;
  }

  /** Whether reports show it when no CPU of a run spent time on it. */
  public boolean alwaysShown() {
    return alwaysShown;
  }
}
