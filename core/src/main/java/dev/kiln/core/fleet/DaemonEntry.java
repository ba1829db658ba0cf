package dev.kiln.core.fleet;

import dev.kiln.core.serve.client.ServeClient;
import java.net.URI;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;

/**
 * One daemon of the operator's list: how to reach a {@code kiln serve} and why to trust it. An immutable value,
 * checked when made: a bad name, URL or pin is refused with a message that says what is expected.
 *
 * @param name what the operator calls it ({@code eval-3}); unique in a list, usable as {@code kiln attach NAME}
 * @param url its base URL, as it printed it ({@code https://eval-3:7117/})
 * @param tokenFile a copy of its {@code observer/api-token}, when one is needed (beyond loopback, or to change things)
 * @param pin the SHA-256 fingerprint of its TLS certificate, canonical {@code AB:CD:…}; only over https
 */
public record DaemonEntry(String name, URI url, Optional<Path> tokenFile, Optional<String> pin) {
    /** Longest name kept: a name is a label, not a description. */
    public static final int MAX_NAME = 64;

    public DaemonEntry {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(url, "url");
        Objects.requireNonNull(tokenFile, "tokenFile");
        Objects.requireNonNull(pin, "pin");
        name = name.strip();
        if (name.isEmpty() || name.length() > MAX_NAME || name.chars().anyMatch(c -> Character.isISOControl(c))
                || name.contains("://")) {
            throw new IllegalArgumentException("a daemon's name is a short label (1 to " + MAX_NAME + " characters, no URL),"
                    + " e.g. eval-3; not \"" + name + "\"");
        }
        String scheme = url.getScheme() == null ? "" : url.getScheme().toLowerCase(Locale.ROOT);
        if (!scheme.equals("http") && !scheme.equals("https") || url.getHost() == null) {
            throw new IllegalArgumentException("daemon " + name + ": its URL is http://HOST:PORT/ or https://HOST:PORT/"
                    + " (as kiln serve prints it), not \"" + url + "\"");
        }
        if (url.getRawQuery() != null || url.getRawUserInfo() != null) {
            throw new IllegalArgumentException("daemon " + name + ": a URL carries no query or user (a token goes in a"
                    + " token file, --token-file, never in a URL)");
        }
        pin = pin.map(String::strip).filter(p -> !p.isEmpty()).map(ServeClient::normalizePin);
        if (pin.isPresent() && !scheme.equals("https")) {
            throw new IllegalArgumentException("daemon " + name + ": a certificate pin needs an https:// URL; " + url
                    + " is plain HTTP");
        }
        url = URI.create(scheme + "://" + url.getRawAuthority() + "/");
    }

    /**
     * A daemon from text as a person types it: the URL trimmed (a bare {@code host:port} is taken as {@code http://}),
     * a blank token file or pin as none.
     *
     * @throws IllegalArgumentException saying what is wrong
     */
    public static DaemonEntry of(String name, String url, String tokenFile, String pin) {
        String u = url.strip();
        if (!u.contains("://")) {
            u = "http://" + u;
        }
        URI uri;
        try {
            uri = new URI(u);
        } catch (java.net.URISyntaxException e) {
            throw new IllegalArgumentException("daemon " + name.strip() + ": \"" + url.strip() + "\" is no URL ("
                    + e.getReason() + "); give http://HOST:PORT/ or https://HOST:PORT/");
        }
        Optional<Path> token;
        try {
            token = tokenFile.isBlank() ? Optional.empty() : Optional.of(Path.of(tokenFile.strip()));
        } catch (java.nio.file.InvalidPathException e) {
            throw new IllegalArgumentException("daemon " + name.strip() + ": \"" + tokenFile + "\" is no file path", e);
        }
        return new DaemonEntry(name, uri, token, pin.isBlank() ? Optional.empty() : Optional.of(pin));
    }

    /** Whether it is reached over TLS. */
    public boolean tls() {
        return url.getScheme().equals("https");
    }

    /** The same daemon trusting the certificate with fingerprint {@code sha256}. */
    public DaemonEntry withPin(String sha256) {
        return new DaemonEntry(name, url, tokenFile, Optional.of(sha256));
    }

    /** A client of its API: health, version, a manual projection. Cheap to make; holds no connection. */
    public ServeClient client() {
        return ServeClient.remote(url, tokenFile.orElse(null), pin.orElse(null));
    }
}
