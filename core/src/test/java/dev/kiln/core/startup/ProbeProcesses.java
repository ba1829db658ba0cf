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
        List<Long> out = new ArrayList<>();
        long self = ProcessHandle.current().pid();
        try (Stream<Path> procs = Files.list(Path.of("/proc"))) {
            for (Path p : (Iterable<Path>) procs::iterator) {
                String name = p.getFileName().toString();
                if (!name.chars().allMatch(Character::isDigit) || Long.parseLong(name) == self) {
                    continue;
                }
                try {
                    String cmdline = new String(Files.readAllBytes(p.resolve("cmdline")), StandardCharsets.UTF_8).replace('\0', ' ');
                    if (!cmdline.contains(marker)) {
                        continue;
                    }
                    String stat = Files.readString(p.resolve("stat"));
                    char state = stat.charAt(stat.lastIndexOf(')') + 2);
                    if (state != 'Z' && state != 'X') {
                        out.add(Long.parseLong(name));
                    }
                } catch (IOException gone) {
                    // The process ended while the table was read.
                }
            }
        }
        return out;
    }

    /** Pids of live (not zombie) processes whose working directory is {@code dir} or below it. */
    static List<Long> livingIn(Path dir) throws IOException {
        Path real = dir.toRealPath();
        List<Long> out = new ArrayList<>();
        long self = ProcessHandle.current().pid();
        try (Stream<Path> procs = Files.list(Path.of("/proc"))) {
            for (Path p : (Iterable<Path>) procs::iterator) {
                String name = p.getFileName().toString();
                if (!name.chars().allMatch(Character::isDigit) || Long.parseLong(name) == self) {
                    continue;
                }
                try {
                    if (!Files.readSymbolicLink(p.resolve("cwd")).startsWith(real)) {
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
