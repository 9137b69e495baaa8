package blksim.loadgen.fuzz;

import blksim.config.ConfigError;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Another build of blksim, a {@code blksim.jar}, loaded in a class loader of its own beside this
 * one: every class of it (Akka, the model, the configuration) is its own, and only the JDK is
 * shared. It is called through {@code blksim.loadgen.Main.run(String[], PrintStream, PrintStream)},
 * which every build has had since the first.
 */
public final class JarBuild implements Build, AutoCloseable {
  private final Path jar;
  private final List<String> extra;
  private final URLClassLoader loader;
  private final Method run;

  /**
   * Loads {@code jar}; a jar that is not a blksim build is bad input.
   *
   * @param extra arguments appended to every command line
   */
  public JarBuild(Path jar, List<String> extra) {
    if (!Files.isRegularFile(jar)) {
      throw new ConfigError("blksim fuzz: " + jar + ": no such file");
    }
    this.jar = jar;
    this.extra = List.copyOf(extra);
    try {
      URL url = jar.toUri().toURL();
      this.loader = new URLClassLoader(new URL[] {url}, ClassLoader.getPlatformClassLoader());
      this.run =
          loader
              .loadClass("blksim.loadgen.Main")
              .getMethod("run", String[].class, PrintStream.class, PrintStream.class);
    } catch (MalformedURLException
        | ClassNotFoundException
        | NoSuchMethodException
        | LinkageError e) {
      throw new ConfigError(
          "blksim fuzz: "
              + jar
              + ": not a blksim jar this JVM can run (blksim.loadgen.Main.run): "
              + blksim.actors.engine.RunAborted.describe(e));
    }
  }

  @Override
  public Outcome run(List<String> args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int exit;
    Thread me = Thread.currentThread();
    ClassLoader before = me.getContextClassLoader();
    me.setContextClassLoader(loader);
    try (PrintStream o = new PrintStream(out, true, StandardCharsets.UTF_8);
        PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8)) {
      try {
        List<String> all = new java.util.ArrayList<>(args);
        all.addAll(extra);
        exit = (Integer) run.invoke(null, all.toArray(String[]::new), o, e);
      } catch (InvocationTargetException | LinkageError ex) {
        e.println(
            "blksim: escaped the command line's handlers: "
                + (ex instanceof InvocationTargetException ite ? ite.getCause() : ex));
        exit = -1;
      } catch (IllegalAccessException ex) {
        throw new IllegalStateException("blksim.loadgen.Main.run is not public in " + jar, ex);
      }
    } finally {
      me.setContextClassLoader(before);
    }
    return Outcome.of(
        exit, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8), null);
  }

  @Override
  public String name() {
    return jar.toString();
  }

  /** Lets the other build's classes go. */
  @Override
  public void close() {
    try {
      loader.close();
    } catch (java.io.IOException e) {
      // nothing to do: the jar was only read
    }
  }
}
