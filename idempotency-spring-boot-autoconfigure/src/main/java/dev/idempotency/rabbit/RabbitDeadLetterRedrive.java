package dev.idempotency.rabbit;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.GetResponse;

import org.springframework.amqp.rabbit.connection.Connection;
import org.springframework.amqp.rabbit.connection.ConnectionFactory;
import org.springframework.amqp.rabbit.connection.RabbitUtils;
import org.springframework.amqp.rabbit.support.RabbitExceptionTranslator;

/**
 * Lists and re-drives the dead letters of a queue from its dead-letter queue ({@code <queue><suffix>},
 * {@code orders.dlq} by default). A preview takes up to {@code limit} messages without acknowledging
 * them and hands them all back (the channel closes), so it changes nothing. A re-drive publishes each
 * back to the queue it came from (its {@link RabbitDeadLetterHeaders#ORIGINAL_QUEUE} header, else the
 * queue asked for) through the default exchange, without the dead-letter headers and {@code x-death},
 * waits for the broker's confirm, and only then acknowledges it in the dead-letter queue: a crash in
 * between re-drives it twice, and the consumer's dedup skips the second. Thread-safe.
 *
 * @since 0.2.0
 */
public final class RabbitDeadLetterRedrive {

	/** Most characters of a payload shown in a preview. */
	static final int PAYLOAD_PREVIEW = 512;

	private final ConnectionFactory connectionFactory;

	private final RabbitDeadLetters deadLetters;

	private final String queueSuffix;

	/**
	 * Creates the re-drive.
	 * @param connectionFactory opens the channel the dead-letter queue is read on
	 * @param deadLetters publishes with confirms
	 * @param queueSuffix appended to a queue's name to name its dead-letter queue
	 */
	public RabbitDeadLetterRedrive(ConnectionFactory connectionFactory, RabbitDeadLetters deadLetters,
			String queueSuffix) {
		this.connectionFactory = connectionFactory;
		this.deadLetters = deadLetters;
		this.queueSuffix = queueSuffix;
	}

	/**
	 * The dead-letter queue of a queue.
	 * @param queue the queue
	 * @return {@code <queue><suffix>}
	 */
	public String deadLetterQueue(String queue) {
		return queue + this.queueSuffix;
	}

	/**
	 * What a re-drive would send, without sending it.
	 * @param queue the original queue
	 * @param limit the most dead letters, at least 1
	 * @return the dead-letter queue, and the dead letters with their headers and payload
	 */
	public Map<String, Object> preview(String queue, int limit) {
		return run(queue, limit, false);
	}

	/**
	 * Re-drives up to {@code limit} dead letters to the queue they came from.
	 * @param queue the original queue
	 * @param limit the most dead letters, at least 1
	 * @return the dead-letter queue, how many were re-driven, and the dead letters
	 */
	public Map<String, Object> redrive(String queue, int limit) {
		return run(queue, limit, true);
	}

	private Map<String, Object> run(String queue, int limit, boolean send) {
		String deadLetterQueue = deadLetterQueue(queue);
		List<Map<String, Object>> messages = new ArrayList<>();
		Channel channel = null;
		try (Connection connection = this.connectionFactory.createConnection()) {
			channel = connection.createChannel(false);
			for (int i = 0; i < Math.max(1, limit); i++) {
				GetResponse response = channel.basicGet(deadLetterQueue, false);
				if (response == null) {
					break;
				}
				String target = originalQueue(response, queue);
				messages.add(describe(response, target));
				if (send) {
					this.deadLetters.publish("", target, withoutDeadLetterHeaders(response.getProps()),
							response.getBody());
					channel.basicAck(response.getEnvelope().getDeliveryTag(), false);
				}
			}
		}
		catch (IOException | RuntimeException ex) {
			throw RabbitExceptionTranslator.convertRabbitAccessException(ex);
		}
		finally {
			if (channel != null) {
				// Hands the messages taken but not acknowledged back to the dead-letter queue.
				RabbitUtils.setPhysicalCloseRequired(channel, true);
				RabbitUtils.closeChannel(channel);
			}
		}
		Map<String, Object> result = new LinkedHashMap<>();
		result.put("deadLetterQueue", deadLetterQueue);
		result.put("dryRun", !send);
		result.put(send ? "redriven" : "found", messages.size());
		result.put("messages", messages);
		return result;
	}

	private static String originalQueue(GetResponse response, String queue) {
		Map<String, Object> headers = response.getProps().getHeaders();
		Object original = (headers != null) ? headers.get(RabbitDeadLetterHeaders.ORIGINAL_QUEUE) : null;
		return (original != null && !original.toString().isEmpty()) ? original.toString() : queue;
	}

	private static Map<String, Object> describe(GetResponse response, String target) {
		Map<String, Object> description = new LinkedHashMap<>();
		AMQP.BasicProperties properties = response.getProps();
		description.put("messageId", String.valueOf(properties.getMessageId()));
		description.put("target", target);
		Map<String, String> headers = new LinkedHashMap<>();
		if (properties.getHeaders() != null) {
			properties.getHeaders().forEach((name, value) -> {
				if (!RabbitDeadLetterHeaders.EXCEPTION_STACKTRACE.equals(name)) {
					headers.put(name, String.valueOf(value));
				}
			});
		}
		description.put("headers", headers);
		String payload = new String(response.getBody(), StandardCharsets.UTF_8);
		description.put("payload",
				(payload.length() > PAYLOAD_PREVIEW) ? payload.substring(0, PAYLOAD_PREVIEW) + "..." : payload);
		return description;
	}

	private static AMQP.BasicProperties withoutDeadLetterHeaders(AMQP.BasicProperties properties) {
		Map<String, Object> headers = new LinkedHashMap<>();
		if (properties.getHeaders() != null) {
			properties.getHeaders().forEach((name, value) -> {
				if (!RabbitDeadLetterHeaders.isDeadLetterHeader(name) && !"x-death".equals(name)
						&& !name.startsWith("x-first-death") && !name.startsWith("x-last-death")) {
					headers.put(name, value);
				}
			});
		}
		return properties.builder().headers(headers).build();
	}

}
