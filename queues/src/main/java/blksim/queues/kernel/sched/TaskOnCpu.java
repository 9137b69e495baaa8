package blksim.queues.kernel.sched;

/**
 * The task a call runs in ({@code current}), as the models that keep a caller's state find it: its
 * CPU and its place there. A hardware queue keeps, per task, what outlives one step of its call:
 * its sleep on the tag wait queue, the bios its submission found no tag for, a queue run paused for
 * the driver. Several tasks of one CPU each have their own (docs/model.md section 2, "Scheduling").
 *
 * @param cpu the CPU the task runs on; what the call does is charged there
 * @param slot its place on that CPU: 0, 1, ... in the order of its threads; or a negative number
 *     the caller gives a context of its own (an io-wq worker, the CPU's interrupt path)
 */
public record TaskOnCpu(int cpu, int slot) {}
