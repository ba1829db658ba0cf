package dev.kiln.ui.archfixture;

import dev.kiln.core.serve.ProjectionDaemon;

/**
 * Fixture for {@code ArchitectureTest}: ui code that reaches into the daemon package, which core exports to the CLI
 * (dev.kiln.app) only. On the module path javac refuses it; on the class path the tests run on, only the rule does.
 */
public final class ReachesTheDaemon {
    public String ask(ProjectionDaemon daemon) {
        return daemon.url().toString();
    }
}
