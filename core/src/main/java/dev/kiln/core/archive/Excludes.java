package dev.kiln.core.archive;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Exclude globs, matched against every path component ({@code __pycache__} drops that directory wherever it
 * is; {@code *.pyc} drops those files at any depth). A glob with a {@code /} is matched against the path
 * relative to the root instead. Plain names are a hash lookup; only real globs cost a regex.
 */
final class Excludes {
    private final Set<String> names = new HashSet<>();
    private final List<Pattern> namePatterns = new ArrayList<>();
    private final List<Pattern> pathPatterns = new ArrayList<>();

    Excludes(List<String> globs) {
        for (String g : globs) {
            if (g == null || g.isBlank()) {
                throw new ArchiveException("An exclude pattern is empty; give a glob such as '*.pyc' or a name such as '.git'");
            }
            String glob = g.endsWith("/") && g.length() > 1 ? g.substring(0, g.length() - 1) : g;
            if (glob.contains("/")) {
                pathPatterns.add(toRegex(glob));
            } else if (isLiteral(glob)) {
                names.add(glob);
            } else {
                namePatterns.add(toRegex(glob));
            }
        }
    }

    /** Whether the component {@code name} at {@code relative} (root-relative, '/'-separated) is excluded. */
    boolean excludes(String name, String relative) {
        if (names.contains(name)) {
            return true;
        }
        for (Pattern p : namePatterns) {
            if (p.matcher(name).matches()) {
                return true;
            }
        }
        for (Pattern p : pathPatterns) {
            if (p.matcher(relative).matches()) {
                return true;
            }
        }
        return false;
    }

    private static boolean isLiteral(String glob) {
        for (int i = 0; i < glob.length(); i++) {
            char c = glob.charAt(i);
            if (c == '*' || c == '?' || c == '[' || c == '{' || c == '\\') {
                return false;
            }
        }
        return true;
    }

    /** Glob to regex: {@code **} crosses '/', {@code *} and {@code ?} do not, {@code [..]} is a class. */
    static Pattern toRegex(String glob) {
        StringBuilder re = new StringBuilder();
        for (int i = 0; i < glob.length(); i++) {
            char c = glob.charAt(i);
            switch (c) {
                case '*' -> {
                    if (i + 1 < glob.length() && glob.charAt(i + 1) == '*') {
                        re.append(".*");
                        i++;
                    } else {
                        re.append("[^/]*");
                    }
                }
                case '?' -> re.append("[^/]");
                case '[' -> {
                    int end = glob.indexOf(']', i + 1);
                    if (end < 0) {
                        throw new ArchiveException("Exclude pattern '" + glob + "' has an unclosed '['");
                    }
                    String body = glob.substring(i + 1, end);
                    if (body.startsWith("!")) {
                        body = "^" + body.substring(1);
                    }
                    re.append('[').append(body.replace("\\", "\\\\")).append(']');
                    i = end;
                }
                case '\\' -> {
                    if (i + 1 < glob.length()) {
                        re.append(Pattern.quote(String.valueOf(glob.charAt(++i))));
                    }
                }
                default -> re.append(Pattern.quote(String.valueOf(c)));
            }
        }
        return Pattern.compile(re.toString());
    }
}
