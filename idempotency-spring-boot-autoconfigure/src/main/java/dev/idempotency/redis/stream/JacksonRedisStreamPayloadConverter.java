package dev.idempotency.redis.stream;

import java.lang.reflect.Type;

import tools.jackson.databind.json.JsonMapper;

/**
 * Reads payloads as JSON with Jackson.
 *
 * @since 0.1.0
 */
public class JacksonRedisStreamPayloadConverter implements RedisStreamPayloadConverter {

	private final JsonMapper mapper;

	public JacksonRedisStreamPayloadConverter(JsonMapper mapper) {
		this.mapper = mapper;
	}

	@Override
	public Object convert(String payload, Type targetType) {
		return this.mapper.readValue(payload, this.mapper.constructType(targetType));
	}

}
