package dev.kiln.ui.shell;

import atlantafx.base.theme.PrimerDark;
import atlantafx.base.theme.PrimerLight;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;

/** The console's two looks, and which one the desktop asks for. */
public enum Theme {
    LIGHT, DARK;

    /**
     * The AtlantaFX user-agent stylesheet of this theme: the binary copy the build made of it (BinaryStylesheets:
     * ≈ 10× faster to load, which the first frame waits for), else AtlantaFX's own text sheet.
     */
    public String userAgentStylesheet() {
        java.net.URL binary = Theme.class.getResource(binaryStylesheet());
        return binary != null ? binary.toExternalForm() : atlantaFxStylesheet();
    }

    /** AtlantaFX's text stylesheet of this theme. */
    String atlantaFxStylesheet() {
        return this == LIGHT ? new PrimerLight().getUserAgentStylesheet() : new PrimerDark().getUserAgentStylesheet();
    }

    /** The build's binary copy of it, beside this class. */
    String binaryStylesheet() {
        return this == LIGHT ? "primer-light.bss" : "primer-dark.bss";
    }

    public Theme other() {
        return this == LIGHT ? DARK : LIGHT;
    }

    /** {@code light} / {@code dark}: the settings file's and the command line's spelling. */
    public String key() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** The theme spelled {@code light} or {@code dark} (any case), if it is one. */
    public static Optional<Theme> parse(String text) {
        if (text == null) {
            return Optional.empty();
        }
        return switch (text.strip().toLowerCase(Locale.ROOT)) {
            case "light" -> Optional.of(LIGHT);
            case "dark" -> Optional.of(DARK);
            default -> Optional.empty();
        };
    }

    /**
     * What the desktop prefers: GNOME's {@code color-scheme} when {@code gsettings} answers ({@code 'prefer-dark'}
     * is dark, anything else light), else {@code GTK_THEME} (dark when it names the {@code :dark} variant), else
     * dark — an operator's console in a dim room is the safer guess.
     *
     * @param gsettings the output of {@code gsettings get org.gnome.desktop.interface color-scheme}, empty when it
     *     is not installed or fails
     */
    public static Theme fromDesktop(Map<String, String> env, Supplier<Optional<String>> gsettings) {
        Optional<String> scheme = gsettings.get().map(String::strip).filter(s -> !s.isEmpty());
        if (scheme.isPresent()) {
            return scheme.get().contains("dark") ? DARK : LIGHT;
        }
        String gtk = env.get("GTK_THEME");
        if (gtk != null && !gtk.isBlank()) {
            return gtk.toLowerCase(Locale.ROOT).contains(":dark") ? DARK : LIGHT;
        }
        return DARK;
    }

    /** Asks {@code gsettings} (bounded to a second: a hung D-Bus must not hold up the window). */
    public static Optional<String> askGsettings() {
        try {
            Process p = new ProcessBuilder("gsettings", "get", "org.gnome.desktop.interface", "color-scheme")
                    .redirectErrorStream(true).start();
            p.getOutputStream().close();
            if (!p.waitFor(1, java.util.concurrent.TimeUnit.SECONDS)) {
                p.destroyForcibly();
                return Optional.empty();
            }
            String out = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8).strip();
            return p.exitValue() == 0 && out.startsWith("'") ? Optional.of(out) : Optional.empty();
        } catch (java.io.IOException e) {
            return Optional.empty(); // not installed: fall back to GTK_THEME
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.empty();
        }
    }
}
