package blksim.queues.cost;

/**
 * What mq-deadline adds to a request's path (block/mq-deadline.c, blk-mq-sched.c and blk-mq.c of
 * 5.16), none of it in the shape (measured with no scheduler): counted from the code in calls,
 * loads, stores, atomics and per-CPU adds of this CPU's facts, as libaio's and device mapper's
 * paths are. {@code dd->lock} is {@code _raw_spin_lock} (a call, a locked cmpxchg) and an inline
 * unlock (a store). {@link PathCosts} calls it; docs/kernel.md section 12 lists the counts.
 *
 * <ul>
 *   <li>{@code dd_bio_merge}, for each bio the plug did not merge: the indirect call, the lock,
 *       {@code blk_mq_sched_try_merge} and {@code elv_merge} (two calls, {@code q->last_merge}),
 *       {@code elv_rqhash_find} (a call, the bucket) and {@code dd_request_merge}'s {@code
 *       elv_rb_find} (a call, {@code front_merges}, the root). With nomerges=1 {@code elv_merge}
 *       stops after {@code last_merge}; with 2 {@code blk_mq_attempt_bio_merge} never calls it.
 *   <li>{@code dd_prepare_request}: the RQF_ELV part of {@code blk_mq_rq_ctx_init} ({@code
 *       q->elevator}, its type; the icq, hash node and rb node cleared, {@code priv[0]} and {@code
 *       RQF_ELVPRIV} set: five stores) and the indirect call.
 *   <li>{@code dd_insert_requests}, once per plug flush: {@code blk_mq_sched_insert_requests} with
 *       its {@code q_usage_counter} get and put (two per-CPU adds), the elevator's ops, the lock,
 *       and the queue run down to {@code blk_mq_dispatch_rq_list}: eleven calls, five loads, a
 *       store.
 *   <li>{@code dd_insert_request}, per request: off the flush's list (two loads, four stores), the
 *       zone and priority tests, {@code stats.inserted} and {@code priv[0]}, the insert merge's
 *       miss ({@code elv_attempt_insert_merge} against {@code last_merge} and the hash), {@code
 *       elv_rb_add}'s link and {@code rb_insert_color}, {@code elv_rqhash_add}, {@code fifo_time},
 *       {@code list_add_tail}: seven calls, twelve loads, twenty stores; each tree level walked is
 *       one more load ({@code elv_rb_add}).
 *   <li>{@code dd_dispatch_request}, per request: {@code dd_has_work}, the dispatch list and budget
 *       tests, the lock, {@code jiffies}, the aged-priority check, the RT class's empty lists, the
 *       BE class's {@code next_rq}, {@code rb_next}, {@code list_del_init}, {@code rb_erase},
 *       {@code elv_rqhash_del}, {@code last_merge}, {@code stats.dispatched}, the flags, then onto
 *       the dispatch list: six calls, eighteen loads, twenty-one stores.
 *   <li>{@code blk_mq_get_driver_tag}: a call, {@code __sbitmap_queue_get} (a call, an atomic),
 *       {@code hctx->tags}, {@code rq->tag} and {@code tags->rqs[tag]} stored.
 *   <li>{@code dd_finish_request} at the request's free: the indirect call, the elevator's ops,
 *       {@code priv[0]}, {@code atomic_inc(&stats.completed)}, the zone test; and the sched tag's
 *       {@code blk_mq_put_tag} (a call, an atomic clear, {@code ws_active}) with {@code
 *       blk_mq_sched_restart}'s test.
 * </ul>
 */
final class SchedCosts {
  private SchedCosts() {}

  static void price(
      PathCosts c,
      double call,
      double l1,
      double atomic,
      double store,
      double percpu,
      int nomerges) {
    double lock = call + atomic + store;
    c.set(
        KernelFn.DD_BIO_MERGE,
        nomerges == 2 ? 0 : nomerges == 1 ? 3 * call + l1 + lock : 5 * call + 4 * l1 + lock);
    c.set(KernelFn.DD_PREPARE_REQUEST, call + 2 * l1 + 5 * store);
    c.set(KernelFn.DD_INSERT_REQUESTS, 11 * call + 5 * l1 + lock + 2 * percpu + store);
    c.set(
        KernelFn.DD_INSERT_REQUEST,
        nomerges == 2 ? 5 * call + 9 * l1 + 20 * store : 7 * call + 12 * l1 + 20 * store);
    c.set(KernelFn.ELV_RB_ADD, l1);
    c.set(KernelFn.DD_DISPATCH_REQUEST, 6 * call + 18 * l1 + 21 * store + lock);
    c.set(KernelFn.BLK_MQ_GET_DRIVER_TAG, 2 * call + atomic + l1 + 2 * store);
    c.set(KernelFn.DD_FINISH_REQUEST, 2 * call + 4 * l1 + 2 * atomic);
  }
}
