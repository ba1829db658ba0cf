package dev.kiln.app.cli;

import dev.kiln.app.UserDirs;
import dev.kiln.app.common.CliException;
import dev.kiln.core.fleet.DaemonEntry;
import dev.kiln.core.fleet.DaemonList;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Optional;

/** A daemon named on the command line: a URL, or a NAME from the operator's daemon list ({@code daemons.json}). */
final class DaemonArgs {
    private DaemonArgs() {
    }

    /** Where the daemon list lives. */
    static Path listFile() {
        return UserDirs.config(System.getenv()).resolve(DaemonList.FILE);
    }

    /** The daemon list; a file that does not read is a clear exit 2, naming it. */
    static DaemonList list() {
        try {
            return DaemonList.read(listFile());
        } catch (IOException e) {
            throw new CliException(e.getMessage(), e);
        }
    }

    /**
     * {@code urlOrName} as a daemon: a URL ({@code http://…}, {@code https://…}, or {@code host:port}) or a listed
     * name; {@code tokenFile} and {@code pin}, when given, override the list's.
     */
    static DaemonEntry resolve(String urlOrName, Path tokenFile, String pin) {
        String arg = urlOrName.strip();
        boolean url = arg.contains("://") || arg.matches("[^/\\s]+:\\d+/?");
        try {
            if (url) {
                String name = arg.replaceFirst("^[a-zA-Z][a-zA-Z0-9+.-]*://", "").replaceFirst("/.*$", "");
                DaemonEntry fromList = listOrEmpty().daemons().stream()
                        .filter(d -> d.url().equals(DaemonEntry.of(name.isEmpty() ? "daemon" : name, arg, "", "").url()))
                        .findFirst().orElse(null);
                if (fromList != null) {
                    return override(fromList, tokenFile, pin);
                }
                return DaemonEntry.of(name.isEmpty() ? "daemon" : name, arg, tokenFile == null ? "" : tokenFile.toString(),
                        pin == null ? "" : pin);
            }
            DaemonList l = list();
            DaemonEntry d = l.find(arg).orElseThrow(() -> new CliException("no daemon called " + arg + " in " + listFile()
                    + (l.daemons().isEmpty() ? " (it lists none)" : " (it lists " + String.join(", ",
                            l.daemons().stream().map(DaemonEntry::name).toList()) + ")")
                    + "; give its URL (http://HOST:PORT/, as kiln serve prints it), or add it on the console's Fleet page"));
            return override(d, tokenFile, pin);
        } catch (IllegalArgumentException e) {
            throw new CliException(e.getMessage(), e);
        }
    }

    /** For a URL the list only adds its token file and pin: a list that does not read is no reason to fail. */
    private static DaemonList listOrEmpty() {
        try {
            return DaemonList.read(listFile());
        } catch (IOException e) {
            return DaemonList.empty();
        }
    }

    private static DaemonEntry override(DaemonEntry d, Path tokenFile, String pin) {
        return new DaemonEntry(d.name(), d.url(), tokenFile != null ? Optional.of(tokenFile) : d.tokenFile(),
                pin != null ? Optional.of(pin) : d.pin());
    }
}
