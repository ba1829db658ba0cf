package dev.kiln.core.store;

import java.util.regex.Pattern;

/**
 * What an object is for, and so where it lives under the store's prefix. Objects are immutable: a key is written once
 * (the first complete push wins) and never changed.
 *
 * <pre>
 * seeds/&lt;target&gt;/&lt;lockfile-sha256&gt;/                        a target's seed for one lockfile
 * servers/&lt;package&gt;@&lt;version&gt;/&lt;runtime&gt;/&lt;registry-hash&gt;/   a server's runtime seed (e.g. runtime python3.12)
 * archives/&lt;archive-sha256&gt;/                              a source archive, by its own SHA-256
 * </pre>
 *
 * Under each: {@code manifest.json} (written last, with {@code If-None-Match: *}) and the object it names,
 * {@code <object-sha256>.tar.gz}.
 *
 * @param path the key's directory under the prefix, without a trailing {@code /}
 */
public record StoreKey(String path) {
    private static final Pattern PART = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._+@-]{0,199}");
    private static final Pattern SHA = Pattern.compile("[0-9a-f]{64}");
    private static final Pattern HASH = Pattern.compile("[0-9a-f]{12,128}");

    public StoreKey {
        for (String part : path.split("/", -1)) {
            if (!PART.matcher(part).matches() || part.equals("..") || part.equals(".")) {
                throw new IllegalArgumentException("store key " + path + ": part \"" + part + "\" must be letters,"
                        + " digits, '.', '_', '+', '@' or '-', starting with a letter or digit");
            }
        }
    }

    /** The seed of {@code target} warmed for the lockfile whose SHA-256 is {@code lockHash}. */
    public static StoreKey seed(String target, String lockHash) {
        return new StoreKey("seeds/" + target + "/" + hash(lockHash, "lockfile hash"));
    }

    /**
     * A server's runtime seed: {@code servers/<package>@<version>/<runtime>/<registryHash>}. {@code registryHash}
     * names the resolved set it was installed from (e.g. the SHA-256 of its lock or of the registry answer).
     */
    public static StoreKey server(String pkg, String version, String runtime, String registryHash) {
        String p = pkg.startsWith("@") ? pkg.substring(1).replace('/', '+') : pkg.replace('/', '+');
        return new StoreKey("servers/" + p + "@" + version + "/" + runtime + "/" + hash(registryHash, "registry hash"));
    }

    /** A source archive, by the SHA-256 of its bytes. */
    public static StoreKey archive(String sha256) {
        if (!SHA.matcher(sha256).matches()) {
            throw new IllegalArgumentException("an archive is keyed by its SHA-256 (64 lower-case hex digits), not \""
                    + sha256 + "\"");
        }
        return new StoreKey("archives/" + sha256);
    }

    private static String hash(String h, String what) {
        if (!HASH.matcher(h).matches()) {
            throw new IllegalArgumentException(what + " must be lower-case hex, not \"" + h + "\"");
        }
        return h;
    }

    String manifestPath() {
        return path + "/manifest.json";
    }

    String objectPath(String sha256) {
        return path + "/" + sha256 + ".tar.gz";
    }

    @Override
    public String toString() {
        return path;
    }
}
