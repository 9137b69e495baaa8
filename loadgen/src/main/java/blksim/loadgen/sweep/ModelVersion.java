package blksim.loadgen.sweep;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.JarURLConnection;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Enumeration;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.stream.Stream;

/**
 * blksim's model version: the SHA-256 of every class and resource that decides what a point's files
 * hold, which are those of the packages {@value #LISTED}: the settings, the kernel's logic, the
 * actors that drive it and the reports written from it. The command line, the sweep itself, the
 * fuzzer and the profile importer are not in it: what they decide reaches a run only through its
 * resolved configuration, which a point's key holds besides (costs included). Two builds of the
 * same sources by different compilers may differ here; then points are computed again, never
 * wrongly shared.
 */
public final class ModelVersion {
  /** The released version of blksim, as {@code blksim --version} prints it. */
  public static final String BLKSIM = "0.1.0";

  static final String LISTED =
      "blksim.config, blksim.queues, blksim.devices, blksim.actors, blksim.loadgen.report and the"
          + " report templates";

  /** Where the model's classes and resources are, as paths in a jar or a class directory. */
  static final List<String> MODEL =
      List.of(
          "blksim/config/",
          "blksim/queues/",
          "blksim/devices/",
          "blksim/actors/",
          "blksim/loadgen/report/",
          "blksim/report/");

  private static volatile String current;

  private ModelVersion() {}

  /** The model version of this build, read once from the class path. */
  public static String current() {
    String v = current;
    if (v == null) {
      v = of(entries(ModelVersion.class.getClassLoader()));
      current = v;
    }
    return v;
  }

  /**
   * The version of {@code entries} (path in the jar to its bytes): the hash of those under {@link
   * #MODEL}, in the order of their names; others are left out.
   */
  static String of(SortedMap<String, byte[]> entries) {
    MessageDigest sha = sha256();
    for (Map.Entry<String, byte[]> e : entries.entrySet()) {
      if (inModel(e.getKey())) {
        sha.update(e.getKey().getBytes(StandardCharsets.UTF_8));
        sha.update((byte) 0);
        sha.update(Long.toString(e.getValue().length).getBytes(StandardCharsets.UTF_8));
        sha.update((byte) 0);
        sha.update(e.getValue());
      }
    }
    return HexFormat.of().formatHex(sha.digest());
  }

  static boolean inModel(String path) {
    return MODEL.stream().anyMatch(path::startsWith) && !path.endsWith("/");
  }

  static MessageDigest sha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JDK has SHA-256", e);
    }
  }

  /** The model's entries that {@code loader} sees: a jar's, or the class directories'. */
  static SortedMap<String, byte[]> entries(ClassLoader loader) {
    SortedMap<String, byte[]> out = new TreeMap<>();
    try {
      for (String prefix : MODEL) {
        Enumeration<URL> roots = loader.getResources(prefix.substring(0, prefix.length() - 1));
        while (roots.hasMoreElements()) {
          read(roots.nextElement(), prefix, out);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("reading blksim's own classes for its model version", e);
    }
    return out;
  }

  private static void read(URL root, String prefix, SortedMap<String, byte[]> out)
      throws IOException {
    if (root.getProtocol().equals("jar")) {
      JarURLConnection c = (JarURLConnection) root.openConnection();
      c.setUseCaches(false);
      try (JarFile jar = c.getJarFile()) {
        Enumeration<JarEntry> all = jar.entries();
        while (all.hasMoreElements()) {
          JarEntry e = all.nextElement();
          if (e.getName().startsWith(prefix) && !e.isDirectory()) {
            try (InputStream in = jar.getInputStream(e)) {
              out.put(e.getName(), in.readAllBytes());
            }
          }
        }
      }
      return;
    }
    Path dir;
    try {
      dir = Path.of(root.toURI());
    } catch (URISyntaxException e) {
      throw new IOException(e);
    }
    Path top = dir;
    for (int i = 0; i < prefix.split("/").length; i++) {
      top = top.getParent();
    }
    try (Stream<Path> files = Files.walk(dir)) {
      for (Path f : (Iterable<Path>) files.filter(Files::isRegularFile).sorted()::iterator) {
        out.put(top.relativize(f).toString().replace('\\', '/'), Files.readAllBytes(f));
      }
    }
  }
}
