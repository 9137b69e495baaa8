package blksim.loadgen.report;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** RFC 4180's quoting of one field. */
class CsvReportTest {
  @Test
  void aFieldShouldBeQuotedOnlyWhenItHoldsACommaAQuoteOrALineBreak() {
    assertEquals("t/io_uring -d32 /dev/nullb0", CsvReport.quote("t/io_uring -d32 /dev/nullb0"));
    assertEquals("", CsvReport.quote(""));
    assertEquals("\"a,b\"", CsvReport.quote("a,b"));
    assertEquals("\"say \"\"hi\"\"\"", CsvReport.quote("say \"hi\""));
    assertEquals("\"two\r\nlines\"", CsvReport.quote("two\r\nlines"));
    assertEquals("\"one\nline\"", CsvReport.quote("one\nline"));
  }
}
