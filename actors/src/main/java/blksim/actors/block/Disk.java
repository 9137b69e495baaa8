package blksim.actors.block;

import blksim.actors.engine.SimRef;
import blksim.queues.block.bio.Bio;
import blksim.queues.block.blk_mq.QueueMap;
import java.util.List;

/**
 * A gendisk as its submitters see it: a name under {@code /dev}, a size, and where a bio submitted
 * or polled on a CPU goes. For a blk-mq disk that is a function of the CPU, run where the bio is
 * submitted ({@code blk_mq_map_queue}); a bio-based disk takes every bio itself.
 */
public final class Disk {
  private final String name;
  private final long sizeBytes;
  private final QueueMap map;
  private final List<SimRef<BlockDevice.Command>> queues;
  private final SimRef<BlockDevice.Command> bioBased;
  private final List<Disk> below;

  private Disk(
      String name,
      long sizeBytes,
      QueueMap map,
      List<SimRef<BlockDevice.Command>> queues,
      SimRef<BlockDevice.Command> bioBased,
      List<Disk> below) {
    this.name = name;
    this.sizeBytes = sizeBytes;
    this.map = map;
    this.queues = queues;
    this.bioBased = bioBased;
    this.below = below;
  }

  /**
   * A blk-mq disk.
   *
   * @param queues each hardware queue's address for the block-device protocol, by index
   */
  public static Disk blkMq(
      String name, long sizeBytes, QueueMap map, List<SimRef<BlockDevice.Command>> queues) {
    return new Disk(name, sizeBytes, map, List.copyOf(queues), null, List.of());
  }

  /**
   * A bio-based disk stacked on {@code below}.
   *
   * @param device the disk's address for the block-device protocol
   */
  public static Disk bioBased(
      String name, long sizeBytes, SimRef<BlockDevice.Command> device, List<Disk> below) {
    return new Disk(name, sizeBytes, null, List.of(), device, List.copyOf(below));
  }

  /**
   * Where a bio submitted on {@code cpu} goes ({@code __submit_bio}, block/blk-core.c): a bio-based
   * disk's own {@code submit_bio}, or {@code blk_mq_submit_bio} on the hardware queue {@link
   * #hctxOf} names.
   */
  public SimRef<BlockDevice.Command> submitTo(int cpu, boolean polled) {
    if (bioBased != null) {
      return bioBased;
    }
    return queues.get(hctxOf(cpu, polled));
  }

  /**
   * QUEUE_FLAG_POLL: whether a polled bio stays polled here. A blk-mq disk polls when its tag set
   * maps poll queues; a bio-based disk decides for itself (DM's bio polling).
   */
  public boolean pollsBlkMq() {
    return bioBased != null || map.queueFlagPoll();
  }

  /**
   * The hardware queue a read bio submitted on {@code cpu} maps to ({@link
   * QueueMap#blkMqMapQueue}); blk-mq disks only.
   */
  public int hctxOf(int cpu, boolean polled) {
    return map.blkMqMapQueue(cpu, polled, Bio.REQ_OP_READ);
  }

  /** What {@code bio_poll} of a bio with {@code cookie} calls: the hardware queue, or the disk. */
  public SimRef<BlockDevice.Command> pollTo(int cookie) {
    return bioBased != null ? bioBased : queues.get(cookie);
  }

  /**
   * The blk-mq hardware queues a bio of {@code cpu} ends up on, as {@code disk-hctxN} names: its
   * own, or those of the disks it is stacked on.
   */
  public List<String> hwQueues(int cpu, boolean polled) {
    if (bioBased == null) {
      return List.of(queues.get(hctxOf(cpu, polled)).name());
    }
    return below.stream().flatMap(d -> d.hwQueues(cpu, polled).stream()).distinct().toList();
  }

  public boolean isBioBased() {
    return bioBased != null;
  }

  /** The name under /dev: nullb0, dm-0. */
  public String name() {
    return name;
  }

  public long sizeBytes() {
    return sizeBytes;
  }

  @Override
  public String toString() {
    return "/dev/" + name;
  }
}
