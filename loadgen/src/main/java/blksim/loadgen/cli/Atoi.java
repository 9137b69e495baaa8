package blksim.loadgen.cli;

import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * The numbers of t/io_uring's flags: ASCII digits with an optional sign, as its {@code atoi} reads
 * them (Java's parseInt would also take other scripts' digits, which atoi does not). A size with a
 * suffix, such as {@code -b 4k}, is refused with the number it stands for as a hint.
 */
final class Atoi {
  private Atoi() {}

  private static final Pattern ASCII = Pattern.compile("[+-]?[0-9]+");

  private static final Pattern SIZE = Pattern.compile("([0-9]+)([kmg])(i?b)?");

  /** A value that is not a number: the option's name and value are added where it is printed. */
  static final class NotANumber extends TypeConversionException {
    private static final long serialVersionUID = 1L;

    /** What to suggest instead: a value (given with the flag), or null. */
    final String hint;

    NotANumber(String message, String hint) {
      super(message);
      this.hint = hint;
    }
  }

  /** An int flag's converter. */
  static final class Int implements ITypeConverter<Integer> {
    @Override
    public Integer convert(String value) {
      long v = parse(value);
      if (v < Integer.MIN_VALUE || v > Integer.MAX_VALUE) {
        throw new NotANumber("out of range (at most " + Integer.MAX_VALUE + ")", null);
      }
      return (int) v;
    }
  }

  /** A long flag's converter. */
  static final class Long implements ITypeConverter<java.lang.Long> {
    @Override
    public java.lang.Long convert(String value) {
      return parse(value);
    }
  }

  static long parse(String value) {
    if (ASCII.matcher(value).matches()) {
      try {
        return java.lang.Long.parseLong(value);
      } catch (NumberFormatException e) {
        throw new NotANumber("out of range (at most " + java.lang.Long.MAX_VALUE + ")", null);
      }
    }
    Matcher m = SIZE.matcher(value.toLowerCase(Locale.ROOT));
    if (m.matches() && m.group(1).length() < 10) {
      int shift = 10 * ("kmg".indexOf(m.group(2)) + 1);
      throw new NotANumber(
          "not a number", String.valueOf(java.lang.Long.parseLong(m.group(1)) << shift));
    }
    throw new NotANumber("not a number: t/io_uring reads ASCII digits 0-9 only", null);
  }
}
