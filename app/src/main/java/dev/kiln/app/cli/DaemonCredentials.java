package dev.kiln.app.cli;

import dev.kiln.core.fleet.DaemonEntry;
import java.nio.file.Path;
import picocli.CommandLine.Option;

/** The picocli mixin of the commands that reach a daemon ({@code status}, {@code attach}): its token file and pin. */
final class DaemonCredentials {
    @Option(names = "--token-file", paramLabel = "FILE",
            description = "A copy of the daemon's observer/api-token: one line, the token (needed when it is bound"
                    + " beyond loopback); keep it mode 600.")
    Path tokenFile;

    @Option(names = "--pin", paramLabel = "SHA256",
            description = "SHA-256 fingerprint of the daemon's TLS certificate (kiln serve prints it); only that"
                    + " certificate is trusted, so a self-signed one works.")
    String pin;

    /** {@code urlOrName} as a daemon, these options overriding the daemon list's (see {@link DaemonArgs#resolve}). */
    DaemonEntry resolve(String urlOrName) {
        return DaemonArgs.resolve(urlOrName, tokenFile, pin);
    }
}
