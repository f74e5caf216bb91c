package dev.idempotency.benchmarks.outbox;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.kafka.core.KafkaOperations;

/** The application of {@link RelayApp}: everything auto-configured, plus the sent counter and the timing sender. */
@SpringBootConfiguration(proxyBeanMethods = false)
@EnableAutoConfiguration
class RelayApplication {

	@Bean
	SentCounter sentCounter() {
		return new SentCounter();
	}

	@Bean
	AckTimes ackTimes() {
		return new AckTimes();
	}

	@Bean
	TimingKafkaOutboxSender timingKafkaOutboxSender(KafkaOperations<?, ?> kafka, AckTimes ackTimes) {
		return new TimingKafkaOutboxSender(kafka, ackTimes);
	}

}
