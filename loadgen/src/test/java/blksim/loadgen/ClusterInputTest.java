package blksim.loadgen;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Bad cluster addresses and key stores: one line, exit 2, before any node starts. */
class ClusterInputTest {
  @TempDir Path tmp;

  @Test
  void badAddressesAndKeyStoresAreOneLineAndExitTwo() throws Exception {
    Path sweep = tmp.resolve("s.conf");
    Files.writeString(sweep, "base = \"io_uring /dev/nullb0\"\naxes { cpus = [1] }\n");
    String s = sweep.toString();
    String[][] cases = {
      {"worker", "Missing required option: '--join=HOST:PORT'"},
      {"worker --join 127.0.0.1", "--join '127.0.0.1': no port"},
      {"worker --join 127.0.0.1:70000", "port 70000 out of range"},
      {"worker --join no-such-host.invalid:2552", "cannot resolve the host name"},
      {"worker --join 192.0.2.1:2552", "give --bind HOST:PORT"},
      {"worker --join 127.0.0.1:2552 --bind 192.0.2.1:0", "give --key-store FILE"},
      {"worker --join 127.0.0.1:2552 --slots 0", "--slots 0: accepted 1 to 256"},
      {
        "worker --join 127.0.0.1:2552 --key-store " + tmp.resolve("k.p12"),
        "BLKSIM_KEY_STORE_PASSWORD"
      },
      {"sweep " + s + " --key-store k.p12", "--key-store is for --cluster HOST:PORT"},
      {"sweep " + s + " --insecure-plain-tcp", "--insecure-plain-tcp is for --cluster"},
      {"sweep " + s + " --cluster 127.0.0.1:0", "out of range; accepted 1 to 65535"},
      {"sweep " + s + " --cluster [::1:2552", "in brackets"},
      {"sweep " + s + " --cluster 192.0.2.1:2552", "is not a loopback address"},
    };
    for (String[] c : cases) {
      Blksim b = Blksim.run(c[0].split(" "));
      assertEquals(2, b.status(), c[0] + ": " + b.err());
      assertEquals("", b.out(), c[0]);
      assertEquals(1, b.errLines().size(), c[0] + ": " + b.err());
      assertTrue(b.err().contains(c[1]), c[0] + " -> " + b.err());
    }
  }
}
