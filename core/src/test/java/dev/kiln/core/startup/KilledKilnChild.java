package dev.kiln.core.startup;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * A Kiln stand-in for {@link CpuQuotaTest}: probes one silent server at a 0.5 share and says "spawned" on stdout, so
 * the test can SIGKILL it mid-probe (no shutdown hook runs) and check what the next probe cleans up.
 */
final class KilledKilnChild {
    private KilledKilnChild() {
    }

    public static void main(String[] args) throws Exception {
        Path dir = Path.of(args[0]);
        String marker = args[1];
        ServerConfig silent = ServerConfig.stdio("silent", dir, "python3",
                List.of("-c", "import time; time.sleep(300)", marker + "-server"), Map.of());
        StartupProbe.builder().cpuShare(0.5).timeout(Duration.ofSeconds(300)).events(e -> {
            if (e instanceof ProbeEvent.Spawned) {
                System.out.println("spawned");
                System.out.flush();
            }
        }).build().run(List.of(silent));
    }
}
