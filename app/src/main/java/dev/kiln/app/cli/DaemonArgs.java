package dev.kiln.app.cli;

import dev.kiln.app.UserDirs;
import dev.kiln.app.common.CliException;
import dev.kiln.core.fleet.DaemonEntry;
import dev.kiln.core.fleet.DaemonList;
import dev.kiln.core.serve.client.ServeLock;
import dev.kiln.core.workspace.WorkspaceLayout;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * A daemon named on the command line: a URL, a NAME from the operator's daemon list ({@code daemons.json}), or the
 * directory of a workspace a daemon on this host holds.
 */
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
            Optional<DaemonEntry> listed = l.find(arg);
            if (listed.isEmpty() && Files.isDirectory(Path.of(arg))) {
                return override(ofWorkspace(Path.of(arg)), tokenFile, pin);
            }
            DaemonEntry d = listed.orElseThrow(() -> new CliException("no daemon called " + arg + " in " + listFile()
                    + (l.daemons().isEmpty() ? " (it lists none)" : " (it lists " + String.join(", ",
                            l.daemons().stream().map(DaemonEntry::name).toList()) + ")")
                    + "; give its URL (http://HOST:PORT/, as kiln serve prints it), or add it on the console's Fleet page"));
            return override(d, tokenFile, pin);
        } catch (IllegalArgumentException e) {
            throw new CliException(e.getMessage(), e);
        }
    }

    /**
     * The daemon that holds {@code dir}'s workspace on this host, found by its lock (the URL it announced, the
     * certificate pin, the workspace's token file), so an operator can name the workspace they started it on.
     */
    private static DaemonEntry ofWorkspace(Path dir) {
        WorkspaceLayout layout = WorkspaceLayout.of(dir.toAbsolutePath().normalize());
        ServeLock.Holder h = ServeLock.holder(layout).orElseThrow(() -> new CliException("no kiln serve holds "
                + layout.root() + " (nothing has its lock " + layout.observerDir().resolve("serve.lock")
                + "); start one: kiln serve " + layout.root() + ", or read the workspace without one: kiln project "
                + layout.root()));
        if (h.url() == null) {
            throw new CliException(layout.root() + " is held by " + h.name() + ", which has not announced an API URL"
                    + " yet; try again in a moment, or give the URL it printed");
        }
        Path token = layout.apiTokenFile();
        return DaemonEntry.of(layout.root().getFileName() == null ? "daemon" : layout.root().getFileName().toString(),
                h.url().toString(), Files.isRegularFile(token) ? token.toString() : "",
                h.tlsSha256() == null ? "" : h.tlsSha256());
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
