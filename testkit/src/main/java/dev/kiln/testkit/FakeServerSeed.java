package dev.kiln.testkit;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.util.HexFormat;
import java.util.List;
import java.util.stream.Stream;

/**
 * A made-up npm runtime seed (no npm run) for the tests of ui and app, laid into a staging directory the way a warm
 * leaves one: {@code files} cache blobs, an installed prefix with its relative {@code .bin} link, the manifest and,
 * last, the hash file holding the digest of the files as core's {@code ServerSeeds.hash} computes it (path, NUL,
 * content, in path order; the two Kiln files left out). Core's own tests use {@code SeedFixtures.serverSeed}, which
 * calls that digest itself; a drift between the two shows as a {@code corrupt} seed in these tests.
 */
public final class FakeServerSeed {
    private static final String HASH_FILE = ".kiln-seed-hash";
    private static final String MANIFEST_FILE = "kiln-seed.json";

    private FakeServerSeed() {
    }

    /**
     * Writes the seed of {@code pkg@version} for {@code server} into the empty directory {@code dir}; {@code salt}
     * makes its content differ (two hosts' separate warms).
     */
    public static void write(Path dir, String server, String pkg, String version, String runtime, String registry,
            int files, String salt) throws IOException {
        for (int i = 0; i < files; i++) {
            Path f = dir.resolve("npm-cache/_cacache/content-v2/sha512/" + String.format("%02x", i % 61) + "/blob" + i);
            Files.createDirectories(f.getParent());
            Files.writeString(f, salt + " tarball bytes " + i + "\n");
        }
        Path pkgDir = dir.resolve("prefix/node_modules/" + pkg);
        Files.createDirectories(pkgDir.resolve("dist"));
        Path entry = pkgDir.resolve("dist/index.js");
        Files.writeString(entry, "#!/usr/bin/env node\nconsole.log('" + salt + "');\n");
        entry.toFile().setExecutable(true);
        Files.writeString(pkgDir.resolve("package.json"), "{\"name\": \"" + pkg + "\", \"version\": \"" + version
                + "\", \"bin\": \"dist/index.js\"}\n");
        Path bin = Files.createDirectories(dir.resolve("prefix/node_modules/.bin"));
        Files.createSymbolicLink(bin.resolve(pkg.substring(pkg.lastIndexOf('/') + 1)), bin.relativize(entry));
        Files.writeString(dir.resolve(MANIFEST_FILE), "{\"server\": \"" + server + "\", \"launcher\": \"npx\", \"package\": \""
                + pkg + "\", \"version\": \"" + version + "\", \"requested\": \"" + version + "\", \"runtime\": \"" + runtime
                + "\", \"registry\": \"" + registry + "\", \"warmed_at\": \"" + Instant.now().minusSeconds(900)
                + "\", \"duration_ms\": 8400}\n");
        Files.writeString(dir.resolve(HASH_FILE), digest(dir) + "\n", StandardCharsets.US_ASCII);
    }

    private static String digest(Path dir) throws IOException {
        MessageDigest md;
        try {
            md = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
        List<Path> all;
        try (Stream<Path> s = Files.walk(dir)) {
            all = s.filter(p -> Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS)).sorted().toList();
        }
        for (Path f : all) {
            String rel = dir.relativize(f).toString();
            if (rel.equals(HASH_FILE) || rel.equals(MANIFEST_FILE)) {
                continue;
            }
            md.update(rel.getBytes(StandardCharsets.UTF_8));
            md.update((byte) 0);
            try (InputStream in = Files.newInputStream(f)) {
                md.update(in.readAllBytes());
            }
        }
        return HexFormat.of().formatHex(md.digest());
    }
}
