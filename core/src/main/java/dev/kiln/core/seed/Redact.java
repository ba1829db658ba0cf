package dev.kiln.core.seed;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Removes credentials from a line before Kiln keeps it. uv is given the caller's {@code UV_INDEX_URL} (a private
 * index needs its credentials), and a uv that echoes that URL in an error (older releases do, and so can a
 * wrapper script) would carry the password into the log, the warm journal and every event subscriber.
 */
final class Redact {
    /** {@code scheme://user:password@} (or {@code scheme://token@}) at the start of a URL's authority. */
    private static final Pattern USERINFO = Pattern.compile("([A-Za-z][A-Za-z0-9+.-]*://)([^/@\\s:]*)(:[^/@\\s]*)?@");

    private Redact() {
    }

    /** {@code line} with every URL's user-info password (or a bare token) replaced by {@code ***}. */
    static String credentials(String line) {
        if (line.indexOf('@') < 0) {
            return line; // the common case: no URL with user-info, no copy
        }
        Matcher m = USERINFO.matcher(line);
        StringBuilder b = new StringBuilder(line.length());
        while (m.find()) {
            String replacement = m.group(3) == null ? m.group(1) + "***@" : m.group(1) + m.group(2) + ":***@";
            m.appendReplacement(b, Matcher.quoteReplacement(replacement));
        }
        return m.appendTail(b).toString();
    }
}
