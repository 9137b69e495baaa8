package blksim.config;

import com.typesafe.config.Config;

/** Finds the known key nearest to a misspelt one, by edit distance. */
public final class KeySuggestion {
  private KeySuggestion() {}

  /** The nearest key of {@code reference} under {@code blksim.}, or null if none is close. */
  static String nearest(String key, Config reference) {
    String best = null;
    int bestDistance = Integer.MAX_VALUE;
    for (String known :
        reference.getConfig("blksim").root().toConfig().entrySet().stream()
            .map(e -> "blksim." + e.getKey())
            .filter(k -> !k.startsWith("blksim.profiles."))
            .toList()) {
      int d = distance(key, known);
      if (d < bestDistance) {
        bestDistance = d;
        best = known;
      }
    }
    return bestDistance <= Math.max(3, key.length() / 4) ? best : null;
  }

  /** The name of {@code known} nearest to {@code key}, or null if none is within 3 edits. */
  public static String nearestOf(String key, java.util.Collection<String> known) {
    String best = null;
    int bestDistance = Integer.MAX_VALUE;
    for (String k : new java.util.TreeSet<>(known)) {
      int d = distance(key, k);
      if (d < bestDistance) {
        bestDistance = d;
        best = k;
      }
    }
    return bestDistance <= 3 ? best : null;
  }

  /** Levenshtein distance. */
  static int distance(String a, String b) {
    int[] prev = new int[b.length() + 1];
    int[] cur = new int[b.length() + 1];
    for (int j = 0; j <= b.length(); j++) {
      prev[j] = j;
    }
    for (int i = 1; i <= a.length(); i++) {
      cur[0] = i;
      for (int j = 1; j <= b.length(); j++) {
        int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
        cur[j] = Math.min(Math.min(cur[j - 1] + 1, prev[j] + 1), prev[j - 1] + cost);
      }
      int[] t = prev;
      prev = cur;
      cur = t;
    }
    return prev[b.length()];
  }
}
