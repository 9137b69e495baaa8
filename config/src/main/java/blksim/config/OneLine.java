package blksim.config;

/**
 * Text from the user as a message may echo it: on one line, with what a terminal would act on
 * escaped. A newline, a tab, any other control or format character, and the replacement character
 * of an undecodable byte are written as escapes ({@code \n}, {@code \t}, {@code \u001b}); the rest
 * is left as given.
 */
public final class OneLine {
  private OneLine() {}

  /** {@code text} with its control characters escaped. */
  public static String of(String text) {
    StringBuilder b = new StringBuilder(text.length());
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c == '\n') {
        b.append("\\n");
      } else if (c == '\r') {
        b.append("\\r");
      } else if (c == '\t') {
        b.append("\\t");
      } else if (Character.isISOControl(c)
          || Character.getType(c) == Character.FORMAT
          || Character.getType(c) == Character.LINE_SEPARATOR
          || Character.getType(c) == Character.PARAGRAPH_SEPARATOR
          || Character.isSurrogate(c) && !validPair(text, i)
          || c == '\uFFFD') {
        b.append(String.format(java.util.Locale.ROOT, "\\u%04x", (int) c));
      } else {
        b.append(c);
      }
    }
    return b.toString();
  }

  /** Longest input a message echoes whole. */
  public static final int MAX_ECHO = 100;

  /** {@code text} escaped, and cut after {@link #MAX_ECHO} characters. */
  public static String clipped(String text) {
    return text.length() <= MAX_ECHO ? of(text) : of(text.substring(0, MAX_ECHO)) + "...";
  }

  /** {@code text} between single quotes, escaped as {@link #of} does. */
  public static String quoted(String text) {
    return "'" + of(text) + "'";
  }

  private static boolean validPair(String s, int i) {
    char c = s.charAt(i);
    if (Character.isHighSurrogate(c)) {
      return i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1));
    }
    return i > 0 && Character.isHighSurrogate(s.charAt(i - 1));
  }
}
