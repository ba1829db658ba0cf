package dev.kiln.core.startup;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/** Reads the process table (/proc) so tests can prove no server outlived its probe. */
final class ProbeProcesses {
    private ProbeProcesses() {
    }

    /** Pids of live (not zombie) processes whose command line contains {@code marker}. */
    static List<Long> livingWith(String marker) throws IOException {
        return living(p -> new String(Files.readAllBytes(p.resolve("cmdline")), StandardCharsets.UTF_8)
                .replace('\0', ' ').contains(marker));
    }

    /** Pids of live (not zombie) processes whose working directory is {@code dir} or below it. */
    static List<Long> livingIn(Path dir) throws IOException {
        Path real = dir.toRealPath();
        return living(p -> Files.readSymbolicLink(p.resolve("cwd")).startsWith(real));
    }

    /** A test on one {@code /proc/<pid>} directory that may find the process gone. */
    private interface ProcTest {
        boolean test(Path proc) throws IOException;
    }

    /** Pids of live (not zombie) processes other than this one that pass {@code test}. */
    private static List<Long> living(ProcTest test) throws IOException {
        List<Long> out = new ArrayList<>();
        long self = ProcessHandle.current().pid();
        try (Stream<Path> procs = Files.list(Path.of("/proc"))) {
            for (Path p : (Iterable<Path>) procs::iterator) {
                String name = p.getFileName().toString();
                if (!name.chars().allMatch(Character::isDigit) || Long.parseLong(name) == self) {
                    continue;
                }
                try {
                    if (!test.test(p)) {
                        continue;
                    }
                    String stat = Files.readString(p.resolve("stat"));
                    char state = stat.charAt(stat.lastIndexOf(')') + 2);
                    if (state != 'Z' && state != 'X') {
                        out.add(Long.parseLong(name));
                    }
                } catch (IOException gone) {
                    // Ended while the table was read, or not ours to inspect.
                }
            }
        }
        return out;
    }

    /** The local addresses (hex, as in /proc/net/tcp*) listening on {@code port}. */
    static List<String> listeners(int port) throws IOException {
        List<String> out = new ArrayList<>();
        String hexPort = String.format(":%04X", port);
        for (String table : List.of("/proc/net/tcp", "/proc/net/tcp6")) {
            for (String line : Files.readAllLines(Path.of(table))) {
                String[] f = line.trim().split("\\s+");
                if (f.length > 3 && f[1].endsWith(hexPort) && f[3].equals("0A")) {
                    out.add(f[1]);
                }
            }
        }
        return out;
    }
}
