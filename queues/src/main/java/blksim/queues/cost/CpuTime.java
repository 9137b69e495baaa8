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
  LOCK_WAIT("lock wait");

  private final String label;

  CpuTime(String label) {
    this.label = label;
  }

  public String label() {
    return label;
  }
}
