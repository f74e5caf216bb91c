package dev.idempotency.core;

/**
 * The one encoding of a delivery's message id, the default idempotency key: a producer's id (the
 * {@value MessageFields#MESSAGE_ID} header or field) and an id the transport derives from the
 * message's position ({@code topic:partition:offset}, {@code <stream>:<entry id>}) share one key space,
 * so they are written so that they can never be equal, whatever a producer puts in the header.
 * <ul>
 * <li>A transport-derived id is {@code ~<transport>:<its own id>}, the transport's name starting with
 * a letter: {@code ~kafka:orders:0:42}, {@code ~redis-stream:orders:1718000000000-0}.</li>
 * <li>A producer's id is used as it is, unless it starts with {@code ~}: then that {@code ~} is
 * doubled ({@code ~kafka:orders:0:42} becomes {@code ~~kafka:orders:0:42}).</li>
 * </ul>
 * So a derived id starts with {@code ~} and a letter, an escaped producer id with {@code ~~}, and any
 * other producer id not with {@code ~}: a producer cannot choose an id that suppresses a record
 * without one, nor lose its own to one. Ids the outbox writes (UUIDs) are unchanged.
 *
 * @since 0.2.0
 */
public final class MessageIds {

	/**
	 * Starts every transport-derived id; a producer's id that starts with it gets a second one.
	 */
	public static final String RESERVED_PREFIX = "~";

	private MessageIds() {
	}

	/**
	 * The message id of a producer's id (a {@value MessageFields#MESSAGE_ID} header or field).
	 * @param producerId the id as the producer wrote it, not empty
	 * @return the id itself, or with its leading {@code ~} doubled when it starts with one
	 */
	public static String ofProducer(String producerId) {
		if (producerId.isEmpty()) {
			throw new IllegalArgumentException("a producer's message id is not empty");
		}
		return producerId.startsWith(RESERVED_PREFIX) ? RESERVED_PREFIX + producerId : producerId;
	}

	/**
	 * The message id a transport derives for a message without a producer's id.
	 * @param transport the transport's name, starting with a letter and without {@code :}, e.g.
	 * {@code kafka}
	 * @param transportId the transport's own id of the message, e.g. {@code orders:0:42}, not empty
	 * @return {@code ~<transport>:<transportId>}
	 */
	public static String ofTransport(String transport, String transportId) {
		requireTransportName(transport);
		if (transportId.isEmpty()) {
			throw new IllegalArgumentException("a transport's own message id is not empty");
		}
		return RESERVED_PREFIX + transport + ":" + transportId;
	}

	/**
	 * The message id a transport derives from a position in a partitioned log, {@code
	 * ~<transport>:<topic>:<partition>:<offset>}: the same id as {@link #ofTransport(String, String)}
	 * of {@code topic:partition:offset}, built in one step (this runs once per record).
	 * @param transport the transport's name, starting with a letter and without {@code :}, e.g.
	 * {@code kafka}
	 * @param topic the topic, not empty
	 * @param partition the partition
	 * @param offset the offset in the partition
	 * @return {@code ~<transport>:<topic>:<partition>:<offset>}
	 */
	public static String ofLogPosition(String transport, String topic, int partition, long offset) {
		requireTransportName(transport);
		return RESERVED_PREFIX + transport + ":" + topic + ":" + partition + ":" + offset;
	}

	private static void requireTransportName(String transport) {
		if (transport.isEmpty() || !Character.isLetter(transport.charAt(0)) || transport.indexOf(':') >= 0) {
			throw new IllegalArgumentException(
					"a transport's name starts with a letter and has no ':', but was '" + transport + "'");
		}
	}

}
