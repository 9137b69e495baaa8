package blksim.devices.drivers.md;

import blksim.queues.block.bio.Bio;
import blksim.queues.block.bio.BioOwner;

/**
 * Models {@code struct dm_io} with its embedded {@code dm_target_io} (drivers/md/dm-core.h): one
 * original bio's passage through a DM device, and the owner of its clone ({@code bi_private} of the
 * clone is the {@code dm_target_io} inside it). {@code io_count} starts at 2: one reference for
 * submission, one for completion.
 */
public final class DmIo implements BioOwner {
  private final MappedDevice md;
  private final Bio orig;
  private final Bio clone;
  private final LinearTarget ti;
  private final boolean polled;
  private int ioCount = 2;
  private int status;

  DmIo(MappedDevice md, Bio orig, Bio clone, LinearTarget ti) {
    this.md = md;
    this.orig = orig;
    this.clone = clone;
    this.ti = ti;
    this.polled = orig.polled();
  }

  /** The device it belongs to. */
  public MappedDevice md() {
    return md;
  }

  /** {@code io->orig_bio}. */
  public Bio orig() {
    return orig;
  }

  /** {@code io->tio.clone}. */
  public Bio clone() {
    return clone;
  }

  /** {@code io->tio.ti}: the target the clone was mapped through. */
  public LinearTarget target() {
    return ti;
  }

  /** {@code ci->submit_as_polled}: the original was REQ_POLLED when it was submitted. */
  public boolean polled() {
    return polled;
  }

  /** {@code io_count}. */
  public int ioCount() {
    return ioCount;
  }

  /** {@code io->status}: 0 or a negative errno. */
  public int status() {
    return status;
  }

  /**
   * {@code dm_io_dec_pending}: records an error, then drops a reference.
   *
   * @return whether that was the last, and the io completes
   */
  boolean decPending(int error) {
    if (error != 0 && status == 0) {
      status = error;
    }
    if (ioCount <= 0) {
      throw new IllegalStateException(md.name() + ": dm_io of bio " + orig.id() + " put twice");
    }
    return --ioCount == 0;
  }
}
