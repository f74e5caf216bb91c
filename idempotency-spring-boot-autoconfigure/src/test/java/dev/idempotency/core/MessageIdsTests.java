package dev.idempotency.core;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * Tests for {@link MessageIds}.
 */
class MessageIdsTests {

	@ParameterizedTest
	@ValueSource(strings = { "0f8e7c1a-4b2d-4c3e-9f00-123456789abc", "orders:0:1", "kafka:orders:0:1", "a~b", " ~x" })
	void producerIdWithoutALeadingTildeIsUsedAsItIs(String id) {
		assertThat(MessageIds.ofProducer(id)).isEqualTo(id);
	}

	@Test
	void producerIdWithALeadingTildeGetsASecondOne() {
		assertThat(MessageIds.ofProducer("~x")).isEqualTo("~~x");
		assertThat(MessageIds.ofProducer("~")).isEqualTo("~~");
		assertThat(MessageIds.ofProducer("~~x")).isEqualTo("~~~x");
		assertThat(MessageIds.ofProducer("~kafka:orders:0:1")).isEqualTo("~~kafka:orders:0:1");
	}

	@Test
	void transportIdIsTheReservedPrefixTheTransportAndItsOwnId() {
		assertThat(MessageIds.ofTransport("kafka", "orders:0:1")).isEqualTo("~kafka:orders:0:1");
		assertThat(MessageIds.ofTransport("redis-stream", "orders:2-1")).isEqualTo("~redis-stream:orders:2-1");
	}

	@Test
	void aLogPositionIsTheTransportIdOfTopicPartitionAndOffset() {
		assertThat(MessageIds.ofLogPosition("kafka", "orders", 0, 1))
			.isEqualTo(MessageIds.ofTransport("kafka", "orders:0:1"))
			.isEqualTo("~kafka:orders:0:1");
		assertThatIllegalArgumentException().isThrownBy(() -> MessageIds.ofLogPosition("1kafka", "orders", 0, 1));
	}

	@Test
	void producerIdSpelledLikeATransportIdDoesNotEqualIt() {
		String derived = MessageIds.ofTransport("kafka", "orders:0:1");
		assertThat(MessageIds.ofProducer(derived)).isNotEqualTo(derived);
		assertThat(MessageIds.ofProducer("orders:0:1")).isNotEqualTo(derived);
	}

	/**
	 * Every string up to 6 characters over an alphabet of the characters that matter, as a producer's
	 * id and as a transport's own id: no producer id is encoded like a transport id, and no two ids
	 * of one kind are encoded alike.
	 */
	@Test
	void producerIdsAndTransportIdsNeverMeet() {
		List<String> ids = strings("~k:1", 6);
		Set<String> producer = new HashSet<>();
		for (String id : ids) {
			if (!id.isEmpty()) {
				producer.add(MessageIds.ofProducer(id));
			}
		}
		assertThat(producer).hasSize(ids.size() - 1);
		Set<String> transport = new HashSet<>();
		for (String name : List.of("k", "kafka", "redis-stream")) {
			for (String id : ids) {
				if (!id.isEmpty()) {
					transport.add(MessageIds.ofTransport(name, id));
				}
			}
		}
		assertThat(transport).hasSize(3 * (ids.size() - 1));
		assertThat(producer).doesNotContainAnyElementsOf(transport);
	}

	@ParameterizedTest
	@ValueSource(strings = { "", "~kafka", "1kafka", "-kafka", "kaf:ka" })
	void transportNameThatCouldMeetAProducerIdIsRejected(String name) {
		assertThatIllegalArgumentException().isThrownBy(() -> MessageIds.ofTransport(name, "orders:0:1"))
			.withMessageContaining("transport's name");
	}

	@Test
	void emptyIdsAreRejected() {
		assertThatIllegalArgumentException().isThrownBy(() -> MessageIds.ofProducer(""));
		assertThatIllegalArgumentException().isThrownBy(() -> MessageIds.ofTransport("kafka", ""));
	}

	private static List<String> strings(String alphabet, int maxLength) {
		List<String> all = new ArrayList<>(List.of(""));
		List<String> previous = List.of("");
		for (int length = 1; length <= maxLength; length++) {
			List<String> next = new ArrayList<>();
			for (String prefix : previous) {
				for (char c : alphabet.toCharArray()) {
					next.add(prefix + c);
				}
			}
			all.addAll(next);
			previous = next;
		}
		return all;
	}

}
