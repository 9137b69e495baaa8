package blksim.devices.drivers.md;

import blksim.queues.block.bio.Bio;
import blksim.queues.cost.KernelFn;
import java.util.List;

/**
 * Where a CPU's call into a DM device goes next, as {@link MappedDevice} returns it: into io_bs,
 * into a device below, or back to the caller. Each step but {@link Return} carries the call ({@link
 * DmCall}) to resume with, once the component it crosses into answers.
 */
public sealed interface DmNext
    permits DmNext.AllocClones,
        DmNext.SubmitClones,
        DmNext.PollClone,
        DmNext.PutClones,
        DmNext.Return {

  /** When the step starts, in ps. */
  long atPs();

  /** The CPU whose call it is. */
  int cpu();

  /**
   * {@code bio_alloc_clone} of one clone per original from io_bs ({@code alloc_io}'s); resume with
   * {@link MappedDevice#dmSplitAndProcessBio}.
   *
   * @param allocCache whether the clones may come from io_bs's per-CPU cache (seed 002 1/3, polled
   *     originals only)
   */
  record AllocClones(long atPs, int count, boolean allocCache, DmCall call) implements DmNext {
    @Override
    public int cpu() {
      return call.cpu();
    }

    /** The function that pops the per-CPU cache: {@code bio_alloc_clone}. */
    public KernelFn cacheFn() {
      return KernelFn.BIO_ALLOC_CLONE;
    }

    /** A clone shares its original's bio_vecs: it has none of its own. */
    public int nrVecs() {
      return 0;
    }
  }

  /**
   * {@code submit_bio_noacct} of the first group's clones to the device below; resume with {@link
   * MappedDevice#clonesSubmitted}, which goes on with the groups after it.
   *
   * @param groups the groups still to submit, in order, the first now
   */
  record SubmitClones(long atPs, List<CloneGroup> groups, DmCall call) implements DmNext {
    public SubmitClones {
      groups = List.copyOf(groups);
    }

    @Override
    public int cpu() {
      return call.cpu();
    }

    /** The group submitted now. */
    public CloneGroup group() {
      return groups.get(0);
    }
  }

  /**
   * The clones of one round that go to one hardware queue of one device below, in the order they
   * were mapped: submitted together, as one plug's.
   *
   * @param device the path of the device below
   * @param hctx the hardware queue they map to there ({@code blk_mq_map_queue})
   * @param polled whether they are REQ_POLLED (as the first is), which picks that queue's type
   */
  record CloneGroup(String device, int hctx, boolean polled, List<Bio> clones) {
    public CloneGroup {
      clones = List.copyOf(clones);
    }
  }

  /**
   * {@code dm_poll_dm_io}'s {@code bio_poll} of a polled io's clone on the device below, where its
   * cookie says; resume with {@link MappedDevice#clonePolled}.
   */
  record PollClone(long atPs, DmIo io, int cookie, DmCall call) implements DmNext {
    @Override
    public int cpu() {
      return call.cpu();
    }

    /** The path of the device below. */
    public String device() {
      return io.target().device();
    }

    /** The clone polled. */
    public Bio clone() {
      return io.clone();
    }
  }

  /**
   * {@code free_io}'s {@code bio_put} of the clones of completed dm_ios to io_bs; resume with
   * {@link MappedDevice#clonesPut}.
   */
  record PutClones(long atPs, List<Bio> clones, DmCall call) implements DmNext {
    public PutClones {
      clones = List.copyOf(clones);
    }

    @Override
    public int cpu() {
      return call.cpu();
    }
  }

  /**
   * The call returns to its caller.
   *
   * @param queued (a submission) how many of the latest round's originals were taken, not turned
   *     away
   * @param ended bios that ended: completed originals, and others' bios a poll found
   * @param failed (a submission) originals that ended with {@code -EAGAIN}
   */
  record Return(long atPs, int cpu, DmCall.Kind kind, int queued, List<Bio> ended, List<Bio> failed)
      implements DmNext {
    public Return {
      ended = List.copyOf(ended);
      failed = List.copyOf(failed);
    }
  }
}
