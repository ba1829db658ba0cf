package dev.kiln.ui.archfixture;

import dev.kiln.core.archfixture.Hidden;

/** Fixture for {@code ArchitectureTest}: ui code that reaches into a package core does not export. */
public final class ReachesIn {
    public int ask() {
        return Hidden.answer();
    }
}
