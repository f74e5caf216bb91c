package dev.idempotency.testsupport;

import java.util.Map;

import org.springframework.kafka.test.EmbeddedKafkaKraftBroker;

/**
 * What the tests' in-process KRaft brokers share: each test class starts one of its own, with a
 * handful of consumer groups and at most a few transactional producers.
 */
public final class TestKafkaBrokers {

	private TestKafkaBrokers() {
	}

	/**
	 * One partition for the consumer offsets and the transaction state topics, instead of Kafka's
	 * 50 each: a broker creates them when the first group or transactional producer shows up, and
	 * creating 50 partitions made the first group join and the first transaction take about a
	 * second longer (and the broker's shutdown longer).
	 * @param broker a broker not started yet
	 * @return the same broker
	 */
	public static EmbeddedKafkaKraftBroker withSmallInternalTopics(EmbeddedKafkaKraftBroker broker) {
		broker.brokerProperties(
				Map.of("offsets.topic.num.partitions", "1", "transaction.state.log.num.partitions", "1"));
		return broker;
	}

}
