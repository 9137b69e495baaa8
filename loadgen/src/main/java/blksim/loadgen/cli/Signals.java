package blksim.loadgen.cli;

import blksim.actors.engine.Interruption;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;

/**
 * SIGINT and SIGTERM while a run is in progress: the first asks the run to end at its next step
 * (t/io_uring's {@code sig_int}); a second, or one that comes when no run is in progress, ends the
 * process at once with the shell's 128 + signal. The handlers are JDK's {@code sun.misc.Signal}
 * (module jdk.unsupported), reached by reflection so that the build's {@code -Werror} does not meet
 * its proprietary-API warning; where it is missing, signals keep their default action.
 */
final class Signals implements AutoCloseable {
  private static final List<String> NAMES = List.of("INT", "TERM");
  private static final int SIGINT = 2;
  private static final int SIGTERM = 15;

  private final List<Object[]> previous = new ArrayList<>();

  private Signals() {}

  /** Routes SIGINT and SIGTERM to {@code interruption} until {@link #close()}. */
  static Signals routeTo(Interruption interruption) {
    Signals s = new Signals();
    try {
      Class<?> signal = Class.forName("sun.misc.Signal");
      Class<?> handlerType = Class.forName("sun.misc.SignalHandler");
      Method handle = signal.getMethod("handle", signal, handlerType);
      for (String name : NAMES) {
        Object sig = signal.getConstructor(String.class).newInstance(name);
        int code = "INT".equals(name) ? SIGINT : SIGTERM;
        Object handler =
            Proxy.newProxyInstance(
                Signals.class.getClassLoader(),
                new Class<?>[] {handlerType},
                onSignal(interruption, code));
        s.previous.add(new Object[] {handle, sig, handle.invoke(null, sig, handler)});
      }
    } catch (ReflectiveOperationException | RuntimeException e) {
      // No sun.misc.Signal here (or the JVM runs with -Xrs): signals keep their default action.
    }
    return s;
  }

  private static InvocationHandler onSignal(Interruption interruption, int code) {
    return (proxy, method, args) -> {
      if (!"handle".equals(method.getName())) {
        return method.getName().equals("hashCode") ? System.identityHashCode(proxy) : null;
      }
      if (interruption.requested()) {
        Runtime.getRuntime().halt(128 + code);
      }
      interruption.request();
      return null;
    };
  }

  /** Gives SIGINT and SIGTERM back their handlers of before. */
  @Override
  public void close() {
    for (Object[] p : previous) {
      try {
        ((Method) p[0]).invoke(null, p[1], p[2]);
      } catch (ReflectiveOperationException | RuntimeException e) {
        // the previous handler stays replaced; the next signal then ends the process at once
      }
    }
  }
}
