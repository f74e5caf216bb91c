package dev.idempotency.kafka.autoconfigure;

import java.time.Duration;
import java.util.List;

import dev.idempotency.autoconfigure.DedupRetentionTooShortException;
import dev.idempotency.kafka.KafkaRetentionCheck;
import dev.idempotency.kafka.RetentionFinding;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.kafka.core.KafkaAdmin;

/**
 * Runs the {@link KafkaRetentionCheck} once every singleton exists (topics declared as
 * {@code NewTopic} beans have been created by then, and no listener container has started), and
 * warns or fails start-up as {@code idempotency.kafka.retention-check} says.
 */
class KafkaRetentionVerifier implements SmartInitializingSingleton {

	private static final Log logger = LogFactory.getLog(KafkaRetentionVerifier.class);

	private final ConfigurableListableBeanFactory beanFactory;

	private final IdempotencyKafkaProperties.RetentionCheck mode;

	private final KafkaRetentionCheck check;

	private final ObjectProvider<KafkaAdmin> admins;

	KafkaRetentionVerifier(ConfigurableListableBeanFactory beanFactory, IdempotencyKafkaProperties properties,
			Duration defaultRetention, ObjectProvider<KafkaAdmin> admins) {
		this.beanFactory = beanFactory;
		this.mode = properties.getRetentionCheck();
		this.check = new KafkaRetentionCheck(defaultRetention, properties.getRetentionCheckMargin(),
				properties.getRetentionCheckTimeout());
		this.admins = admins;
	}

	@Override
	public void afterSingletonsInstantiated() {
		if (this.mode == IdempotencyKafkaProperties.RetentionCheck.OFF) {
			return;
		}
		KafkaAdmin admin = this.admins.getIfUnique();
		List<RetentionFinding> findings = this.check.run(this.beanFactory,
				(admin != null) ? admin.getConfigurationProperties() : null);
		if (findings.isEmpty()) {
			return;
		}
		if (this.mode == IdempotencyKafkaProperties.RetentionCheck.FAIL) {
			throw new DedupRetentionTooShortException(findings.stream().map(RetentionFinding::message).toList());
		}
		findings.forEach((finding) -> logger.warn(finding.message()));
	}

}
