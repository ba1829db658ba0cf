package dev.kiln.ui.shell;

import dev.kiln.core.fleet.DaemonEntry;
import java.io.IOException;
import java.io.Reader;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Properties;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the console remembers between runs: window bounds, theme, recent workspaces and recently attached daemons, in
 * a small properties file in the user's config directory (the launcher says where). A value that does not read is
 * ignored, never fatal: a console must open even when its memory is damaged.
 *
 * <p>A daemon is remembered as its name, URL, token file <em>path</em> and certificate pin — what {@link DaemonEntry}
 * holds; the token itself stays in its file and is never copied here.
 *
 * @param theme the chosen theme; empty follows the desktop
 * @param bounds the window's last bounds, if any
 * @param recent recently opened workspaces, newest first (at most {@link #RECENT})
 * @param daemons recently attached daemons, newest first, one per URL (at most {@link #RECENT_DAEMONS})
 */
public record ConsoleSettings(Optional<Theme> theme, Optional<Bounds> bounds, List<Path> recent, List<DaemonEntry> daemons) {
    /** Recent workspaces kept. */
    public static final int RECENT = 8;
    /** Recent daemons kept. */
    public static final int RECENT_DAEMONS = 8;
    private static final Logger LOG = LoggerFactory.getLogger(ConsoleSettings.class);

    public ConsoleSettings {
        Objects.requireNonNull(theme);
        Objects.requireNonNull(bounds);
        recent = List.copyOf(recent.subList(0, Math.min(recent.size(), RECENT)));
        daemons = List.copyOf(daemons.subList(0, Math.min(daemons.size(), RECENT_DAEMONS)));
    }

    /** Without recent daemons (as before the console remembered them). */
    public ConsoleSettings(Optional<Theme> theme, Optional<Bounds> bounds, List<Path> recent) {
        this(theme, bounds, recent, List.of());
    }

    /** A window's position and size. */
    public record Bounds(double x, double y, double width, double height) {
    }

    public static ConsoleSettings empty() {
        return new ConsoleSettings(Optional.empty(), Optional.empty(), List.of());
    }

    /** Reads {@code file}; missing or unreadable means {@link #empty()} (logged). */
    public static ConsoleSettings read(Path file) {
        if (!Files.isRegularFile(file)) {
            return empty();
        }
        Properties p = new Properties();
        try (Reader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            p.load(in);
        } catch (IOException | IllegalArgumentException e) {
            LOG.warn("Console settings {} could not be read ({}); starting with defaults", file, e.getMessage());
            return empty();
        }
        Optional<Bounds> bounds = Optional.empty();
        try {
            String[] b = p.getProperty("window", "").split(",");
            if (b.length == 4) {
                Bounds v = new Bounds(Double.parseDouble(b[0].strip()), Double.parseDouble(b[1].strip()),
                        Double.parseDouble(b[2].strip()), Double.parseDouble(b[3].strip()));
                if (v.width() >= 200 && v.height() >= 150 && Double.isFinite(v.x()) && Double.isFinite(v.y())) {
                    bounds = Optional.of(v);
                }
            }
        } catch (NumberFormatException e) {
            LOG.warn("Console settings {}: window '{}' is not x,y,width,height; ignored", file, p.getProperty("window"));
        }
        List<Path> recent = new ArrayList<>();
        for (int i = 0; i < RECENT; i++) {
            String r = p.getProperty("recent." + i);
            if (r != null && !r.isBlank()) {
                try {
                    recent.add(Path.of(r.strip()));
                } catch (java.nio.file.InvalidPathException e) {
                    LOG.warn("Console settings {}: recent.{} is not a path; ignored", file, i);
                }
            }
        }
        List<DaemonEntry> daemons = new ArrayList<>();
        for (int i = 0; i < RECENT_DAEMONS; i++) {
            String url = p.getProperty("daemon." + i + ".url");
            if (url == null || url.isBlank()) {
                continue;
            }
            try {
                DaemonEntry d = DaemonEntry.of(p.getProperty("daemon." + i + ".name", "daemon"), url,
                        p.getProperty("daemon." + i + ".token-file", ""), p.getProperty("daemon." + i + ".pin", ""));
                if (daemons.stream().noneMatch(x -> x.url().equals(d.url()))) {
                    daemons.add(d);
                }
            } catch (IllegalArgumentException e) {
                LOG.warn("Console settings {}: daemon.{} ignored: {}", file, i, e.getMessage());
            }
        }
        return new ConsoleSettings(Theme.parse(p.getProperty("theme")), bounds, recent, daemons);
    }

    /** Writes to {@code file} (temp file + rename, so a crash leaves the old file or the new one). */
    public void write(Path file) throws IOException {
        Properties p = new Properties();
        theme.ifPresent(t -> p.setProperty("theme", t.key()));
        bounds.ifPresent(b -> p.setProperty("window", b.x() + "," + b.y() + "," + b.width() + "," + b.height()));
        for (int i = 0; i < recent.size(); i++) {
            p.setProperty("recent." + i, recent.get(i).toString());
        }
        for (int i = 0; i < daemons.size(); i++) {
            DaemonEntry d = daemons.get(i);
            String key = "daemon." + i + ".";
            p.setProperty(key + "name", d.name());
            p.setProperty(key + "url", d.url().toString());
            int n = i;
            d.tokenFile().ifPresent(t -> p.setProperty("daemon." + n + ".token-file", t.toString()));
            d.pin().ifPresent(pin -> p.setProperty("daemon." + n + ".pin", pin));
        }
        Files.createDirectories(file.toAbsolutePath().getParent());
        Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
        try (Writer out = Files.newBufferedWriter(tmp, StandardCharsets.UTF_8)) {
            p.store(out, "Kiln console: window, theme, recent workspaces and daemons (no tokens)");
        }
        Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    public ConsoleSettings withTheme(Theme t) {
        return new ConsoleSettings(Optional.of(t), bounds, recent, daemons);
    }

    public ConsoleSettings withBounds(Bounds b) {
        return new ConsoleSettings(theme, Optional.of(b), recent, daemons);
    }

    /** {@code workspace} first, without duplicates. */
    public ConsoleSettings withRecent(Path workspace) {
        Path w = workspace.toAbsolutePath().normalize();
        List<Path> r = new ArrayList<>();
        r.add(w);
        recent.stream().filter(x -> !x.equals(w)).forEach(r::add);
        return new ConsoleSettings(theme, bounds, r, daemons);
    }

    /**
     * {@code daemon} first, as attached now (its name, token file and pin replace what was remembered for its URL):
     * one entry per URL, so a daemon renamed in the list is not remembered twice. A relative token file (as
     * {@code kiln attach --token-file} may give it) is kept absolute: the next run may start elsewhere.
     */
    public ConsoleSettings withRecentDaemon(DaemonEntry daemon) {
        List<DaemonEntry> d = new ArrayList<>();
        d.add(new DaemonEntry(daemon.name(), daemon.url(), daemon.tokenFile().map(t -> t.toAbsolutePath().normalize()),
                daemon.pin()));
        daemons.stream().filter(x -> !x.url().equals(daemon.url())).forEach(d::add);
        return new ConsoleSettings(theme, bounds, recent, d);
    }
}
