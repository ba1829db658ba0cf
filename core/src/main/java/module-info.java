/**
 * Kiln's engine: one package per capability, each with a small public face. Never imports JavaFX.
 */
module dev.kiln.core {
    requires transitive com.fasterxml.jackson.databind;
    requires com.fasterxml.jackson.dataformat.toml;
    requires com.fasterxml.jackson.datatype.jdk8;
    requires com.fasterxml.jackson.datatype.jsr310;
    requires org.slf4j;
    requires directory.watcher;
    requires com.github.benmanes.caffeine;
    requires org.apache.commons.compress;
    requires jdk.httpserver;
    requires java.net.http;
    requires static org.jspecify;
    // The Prometheus client's jars are automatic modules (names from their Automatic-Module-Name).
    requires io.prometheus.metrics.core;
    requires io.prometheus.metrics.model;
    requires io.prometheus.writer.text;
    requires io.prometheus.metrics.config;
    // The object store's client (AWS SDK for Java v2): automatic modules (names from their Automatic-Module-Name) on
    // ./kiln's module path; the jlink image links copies that packaging/build.sh gives module descriptors of those
    // names (jlink refuses automatic modules), so the installed kiln has the same client. sts: web identity credentials.
    requires software.amazon.awssdk.services.s3;
    requires software.amazon.awssdk.core;
    requires software.amazon.awssdk.awscore;
    requires software.amazon.awssdk.auth;
    requires software.amazon.awssdk.regions;
    requires software.amazon.awssdk.profiles;
    requires software.amazon.awssdk.http.urlconnection;
    requires software.amazon.awssdk.identity.spi;
    requires software.amazon.awssdk.http;
    requires software.amazon.awssdk.services.sts;

    // Exports are qualified: each names only the modules that import it (the console, ui; the CLI, app) and the JSON
    // binder where it binds public records of the package by reflection; nothing else may reach in. A package nobody
    // outside core uses (http) is not exported at all. Adding a package: docs/ARCHITECTURE.md "Checks" says how;
    // ArchitectureTest holds ui and app to these lines.
    exports dev.kiln.core to dev.kiln.ui, dev.kiln.app, com.fasterxml.jackson.databind;
    exports dev.kiln.core.telemetry to dev.kiln.ui, dev.kiln.app, com.fasterxml.jackson.databind;
    exports dev.kiln.core.workspace to dev.kiln.ui, dev.kiln.app, com.fasterxml.jackson.databind;
    exports dev.kiln.core.snapshot to dev.kiln.ui, dev.kiln.app, com.fasterxml.jackson.databind;
    exports dev.kiln.core.contract to dev.kiln.ui, dev.kiln.app, com.fasterxml.jackson.databind;
    exports dev.kiln.core.projection to dev.kiln.ui, dev.kiln.app, com.fasterxml.jackson.databind;
    exports dev.kiln.core.archive to dev.kiln.ui, dev.kiln.app, com.fasterxml.jackson.databind;
    exports dev.kiln.core.seed to dev.kiln.ui, dev.kiln.app, com.fasterxml.jackson.databind;
    exports dev.kiln.core.startup to dev.kiln.ui, dev.kiln.app, com.fasterxml.jackson.databind;
    exports dev.kiln.core.watch to dev.kiln.ui, dev.kiln.app, com.fasterxml.jackson.databind;
    // The daemon is the CLI's (kiln serve); the console reaches a daemon through the client and the engine only.
    // Neither package has records Jackson binds: the API's shapes are serve.wire's, opened below.
    exports dev.kiln.core.serve to dev.kiln.app;
    exports dev.kiln.core.serve.client to dev.kiln.ui, dev.kiln.app;
    exports dev.kiln.core.doctor to dev.kiln.ui, dev.kiln.app, com.fasterxml.jackson.databind;
    exports dev.kiln.core.engine to dev.kiln.ui, dev.kiln.app, com.fasterxml.jackson.databind;
    exports dev.kiln.core.fleet to dev.kiln.ui, dev.kiln.app, com.fasterxml.jackson.databind;
    exports dev.kiln.core.demo to dev.kiln.ui, dev.kiln.app, com.fasterxml.jackson.databind;
    exports dev.kiln.core.health to dev.kiln.ui, dev.kiln.app, com.fasterxml.jackson.databind;
    exports dev.kiln.core.alert to dev.kiln.ui, dev.kiln.app, com.fasterxml.jackson.databind;
    exports dev.kiln.core.recording to dev.kiln.ui, dev.kiln.app, com.fasterxml.jackson.databind;
    exports dev.kiln.core.store to dev.kiln.ui, dev.kiln.app, com.fasterxml.jackson.databind;

    opens dev.kiln.core.demo to com.fasterxml.jackson.databind;
    // API v1's wire records (beside Wire; the package is exported to nobody) are read and written by Jackson
    opens dev.kiln.core.serve.wire to com.fasterxml.jackson.databind;
}
