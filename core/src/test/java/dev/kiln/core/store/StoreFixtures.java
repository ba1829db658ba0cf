package dev.kiln.core.store;

import dev.kiln.core.seed.Cancellation;
import dev.kiln.core.seed.SeedCaches;
import dev.kiln.core.seed.SeedFixtures;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;

/** Workspaces with targets and seeds made directly (no uv), for the store tests that need many or odd seeds. */
public final class StoreFixtures {
    private StoreFixtures() {
    }

    /** A workspace at {@code dir} with a target {@code name} (the small fixture's lock) and kiln.json naming {@code store}. */
    public static SeedCaches workspace(Path dir, String name, StoreConfig store) throws IOException {
        SeedFixtures.workspace(dir);
        Files.writeString(dir.resolve("kiln.json"), "{\"store\": {\"url\": \"" + store.url() + "\", \"endpoint\": \""
                + store.endpoint().orElseThrow() + "\", \"region\": \"" + store.region() + "\"}}\n");
        SeedFixtures.target(dir, name, "small");
        return SeedCaches.of(dir);
    }

    /**
     * Installs a made-up seed for the target's current lockfile: {@code files} small files in nested directories,
     * a relative link inside, an executable, and {@code bigBytes} of random data; {@code salt} makes its content differ.
     */
    public static void seed(SeedCaches seeds, String target, int files, int bigBytes, String salt) throws IOException {
        String hash = seeds.plan(target).hash();
        Path d = seeds.stagingDir(target, hash);
        Random r = new Random(salt.hashCode());
        for (int i = 0; i < files; i++) {
            Path f = d.resolve("archive-v0/pkg" + (i % 17) + "/mod" + i + ".py");
            Files.createDirectories(f.getParent());
            Files.writeString(f, "# " + salt + " " + i + "\nVALUE = " + r.nextLong() + "\n");
        }
        Files.createDirectories(d.resolve("wheels-v5/pypi/pkg0"));
        Files.createSymbolicLink(d.resolve("wheels-v5/pypi/pkg0/link"), Path.of("../../../archive-v0/pkg0"));
        Path exe = d.resolve("archive-v0/pkg1/bin-tool");
        Files.writeString(exe, "#!/bin/sh\necho " + salt + "\n");
        exe.toFile().setExecutable(true);
        if (bigBytes > 0) {
            byte[] big = new byte[bigBytes];
            r.nextBytes(big);
            Files.write(d.resolve("archive-v0/big.bin"), big);
        }
        Files.writeString(d.resolve("kiln-seed.json"), "{\"target\": \"" + target + "\", \"hash\": \"" + hash + "\"}\n");
        Files.writeString(d.resolve(".kiln-seed-hash"), hash + "\n", StandardCharsets.US_ASCII);
        seeds.install(target, hash, d, Cancellation.create());
    }

    public static ObjectStore store(SeaweedFs fs, StoreConfig config) {
        ObjectStore s = ObjectStore.builder(config).environment(SeaweedFs.env()).build();
        s.ensureBucket();
        return s;
    }
}
