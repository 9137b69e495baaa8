package blksim.devices.drivers.md;

import blksim.queues.block.bio.Bio;
import blksim.queues.cost.CpuTime;
import java.util.List;

/**
 * One CPU's call into a DM device as far as it has got when it crosses into another component
 * (io_bs or a device below): what the call is, whose execution, the originals of its latest round
 * of submissions, and what it has ended so far. A {@link DmNext} carries it out and {@link
 * MappedDevice} resumes from it; it does not change.
 *
 * @param kind what the CPU called
 * @param cpu the calling CPU
 * @param what what that CPU's time goes to
 * @param origs the originals being cloned and submitted: the caller's, then (md->wq's worker) the
 *     deferred ones {@code dm_wq_work} submits again
 * @param resubmitting whether md->wq's kworker runs on the CPU, switched in over the caller
 * @param ended bios handed back as ended: originals that completed, and bios of others a poll of a
 *     shared hardware queue found
 * @param failed originals that ended with {@code -EAGAIN} (a submission only)
 * @param toPut clones of completed dm_ios, for {@code free_io}'s {@code bio_put}
 */
public record DmCall(
    Kind kind,
    int cpu,
    CpuTime what,
    List<Bio> origs,
    boolean resubmitting,
    List<Bio> ended,
    List<Bio> failed,
    List<Bio> toPut) {

  /** The entry of the call. */
  public enum Kind {
    /** {@code submit_bio} of bios on the DM disk ({@code dm_submit_bio}), or a resume's flush. */
    SUBMIT,
    /** {@code bio_poll} of a bio on the DM disk ({@code dm_poll_bio}). */
    POLL,
    /** An interrupt's {@code bio_endio} of clones ({@code clone_endio}). */
    IRQ
  }

  public DmCall {
    origs = List.copyOf(origs);
    ended = List.copyOf(ended);
    failed = List.copyOf(failed);
    toPut = List.copyOf(toPut);
  }
}
