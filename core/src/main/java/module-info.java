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
    // The object store's client (AWS SDK for Java v2): automatic modules (names from their Automatic-Module-Name), which
    // jlink refuses, so they are static: the jlink image does not have them yet (the store then says so), ./kiln and the
    // tests add them (--add-modules software.amazon.awssdk.services.s3 resolves every automatic module of the path).
    requires static software.amazon.awssdk.services.s3;
    requires static software.amazon.awssdk.core;
    requires static software.amazon.awssdk.awscore;
    requires static software.amazon.awssdk.auth;
    requires static software.amazon.awssdk.regions;
    requires static software.amazon.awssdk.profiles;
    requires static software.amazon.awssdk.http.urlconnection;
    requires static software.amazon.awssdk.identity.spi;
    requires static software.amazon.awssdk.http;
    requires static software.amazon.awssdk.services.sts;

    exports dev.kiln.core;
    exports dev.kiln.core.telemetry;
    exports dev.kiln.core.workspace;
    exports dev.kiln.core.snapshot;
    exports dev.kiln.core.contract;
    exports dev.kiln.core.demo;
    exports dev.kiln.core.projection;
    exports dev.kiln.core.archive;
    exports dev.kiln.core.seed;
    exports dev.kiln.core.startup;
    exports dev.kiln.core.watch;
    exports dev.kiln.core.serve;
    exports dev.kiln.core.doctor;
    exports dev.kiln.core.engine;
    exports dev.kiln.core.fleet;
    exports dev.kiln.core.store;

    opens dev.kiln.core.demo to com.fasterxml.jackson.databind;
}
