package blksim.queues.block.bio;

/**
 * What a bio's {@code bi_private} points to, typed: the owner its {@code bi_end_io} completes. For
 * raw block device I/O it is the io_uring request ({@code blkdev_bio_end_io_async} completes it);
 * for a device-mapper clone it is the clone's {@code dm_io} ({@code clone_endio}).
 */
public interface BioOwner {}
