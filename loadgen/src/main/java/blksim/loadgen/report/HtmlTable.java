package blksim.loadgen.report;

import java.util.ArrayList;
import java.util.List;

/**
 * An HTML table of a report page, written into the page as it is (no script draws it): a header row
 * and rows of cells, the first column a name, the others figures, aligned right.
 */
final class HtmlTable {
  private final String cssClass;
  private final List<String> header;
  private final List<List<String>> rows = new ArrayList<>();

  HtmlTable(String cssClass, String... header) {
    this.cssClass = cssClass;
    this.header = List.of(header);
  }

  /** Adds a row; its cells are text, escaped here. */
  HtmlTable row(String... cells) {
    rows.add(List.of(cells));
    return this;
  }

  @Override
  public String toString() {
    StringBuilder b = new StringBuilder("<table class=\"").append(cssClass).append("\">\n<tr>");
    for (String h : header) {
      b.append("<th>").append(escape(h)).append("</th>");
    }
    b.append("</tr>\n");
    for (List<String> r : rows) {
      b.append("<tr>");
      for (int i = 0; i < r.size(); i++) {
        b.append(i == 0 ? "<td>" : "<td class=\"n\">").append(escape(r.get(i))).append("</td>");
      }
      b.append("</tr>\n");
    }
    return b.append("</table>").toString();
  }

  static String escape(String s) {
    return s.replace("&", "&amp;")
        .replace("<", "&lt;")
        .replace(">", "&gt;")
        .replace("\"", "&quot;");
  }
}
