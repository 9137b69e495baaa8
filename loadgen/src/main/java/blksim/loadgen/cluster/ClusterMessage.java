package blksim.loadgen.cluster;

/**
 * What crosses between the nodes of a sweep's cluster: every message that implements it, and only
 * those, is serialized, as CBOR by Jackson (the binding in {@link ClusterConfig}); anything else
 * that arrives is refused by Akka's serialization, which is the allow-list.
 */
public interface ClusterMessage {}
