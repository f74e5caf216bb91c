package dev.idempotency.benchmarks.support;

import org.springframework.boot.autoconfigure.AutoConfigurationImportFilter;
import org.springframework.boot.autoconfigure.AutoConfigurationMetadata;
import org.springframework.context.EnvironmentAware;
import org.springframework.core.env.Environment;

/**
 * Keeps Spring Modulith's auto-configurations out of every benchmark application but the one that
 * asks for them ({@code bench.modulith=true}): the module has Modulith on its classpath for the outbox
 * suite's peer, and Modulith's Kafka support would otherwise switch every application's producer to a
 * byte-array value serializer and register its event publication registry everywhere.
 */
public final class ModulithOnlyWhereAsked implements AutoConfigurationImportFilter, EnvironmentAware {

	/** The property an application sets to {@code true} to get Spring Modulith's auto-configurations. */
	public static final String PROPERTY = "bench.modulith";

	private boolean modulith;

	@Override
	public void setEnvironment(Environment environment) {
		this.modulith = environment.getProperty(PROPERTY, Boolean.class, false);
	}

	@Override
	public boolean[] match(String[] autoConfigurationClasses, AutoConfigurationMetadata autoConfigurationMetadata) {
		boolean[] match = new boolean[autoConfigurationClasses.length];
		for (int i = 0; i < match.length; i++) {
			String candidate = autoConfigurationClasses[i];
			match[i] = this.modulith || candidate == null || !candidate.startsWith("org.springframework.modulith.");
		}
		return match;
	}

}
