package dev.kiln.app;

import java.nio.file.Path;
import java.util.Map;

/** The user's data and state directories, XDG first with the usual fallbacks ({@code $HOME}, then Java's home). */
public final class UserDirs {
    private UserDirs() {
    }

    /** {@code $XDG_DATA_HOME/kiln}, else {@code $HOME/.local/share/kiln}. */
    public static Path data(Map<String, String> env) {
        return base(env, "XDG_DATA_HOME", ".local/share").resolve("kiln");
    }

    /** {@code $XDG_STATE_HOME/kiln}, else {@code $HOME/.local/state/kiln}. */
    public static Path state(Map<String, String> env) {
        return base(env, "XDG_STATE_HOME", ".local/state").resolve("kiln");
    }

    /** {@code $XDG_CONFIG_HOME/kiln}, else {@code $HOME/.config/kiln}. */
    public static Path config(Map<String, String> env) {
        return base(env, "XDG_CONFIG_HOME", ".config").resolve("kiln");
    }

    /** Where the console remembers its window, theme and recent workspaces. */
    public static Path consoleSettings(Map<String, String> env) {
        return config(env).resolve("console.properties");
    }

    /** Where {@code ./kiln} with no arguments puts the demo workspace. */
    public static Path demoWorkspace(Map<String, String> env) {
        return data(env).resolve("demo");
    }

    private static Path base(Map<String, String> env, String variable, String fallback) {
        String v = env.get(variable);
        if (v != null && !v.isBlank() && Path.of(v).isAbsolute()) {
            return Path.of(v);
        }
        // $HOME as the environment says (what the user and every XDG tool mean by ~), not Java's user.home, which
        // comes from the password database and ignores HOME=... given to the command.
        String home = env.get("HOME");
        if (home != null && !home.isBlank() && Path.of(home).isAbsolute()) {
            return Path.of(home).resolve(fallback);
        }
        return Path.of(System.getProperty("user.home")).resolve(fallback);
    }
}
