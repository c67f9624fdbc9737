# Generated from langgraph_actionckpt/service/proto/actionckpt/v1/checkpoint.proto by .ci/gen_proto.py
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class Typed(_message.Message):
    __slots__ = ("type", "data")
    TYPE_FIELD_NUMBER: _ClassVar[int]
    DATA_FIELD_NUMBER: _ClassVar[int]
    type: str
    data: bytes
    def __init__(self, type: _Optional[str] = ..., data: _Optional[bytes] = ...) -> None: ...

class Config(_message.Message):
    __slots__ = ("thread_id", "checkpoint_ns", "checkpoint_id")
    THREAD_ID_FIELD_NUMBER: _ClassVar[int]
    CHECKPOINT_NS_FIELD_NUMBER: _ClassVar[int]
    CHECKPOINT_ID_FIELD_NUMBER: _ClassVar[int]
    thread_id: str
    checkpoint_ns: str
    checkpoint_id: str
    def __init__(self, thread_id: _Optional[str] = ..., checkpoint_ns: _Optional[str] = ..., checkpoint_id: _Optional[str] = ...) -> None: ...

class PendingWrite(_message.Message):
    __slots__ = ("task_id", "channel", "value")
    TASK_ID_FIELD_NUMBER: _ClassVar[int]
    CHANNEL_FIELD_NUMBER: _ClassVar[int]
    VALUE_FIELD_NUMBER: _ClassVar[int]
    task_id: str
    channel: str
    value: Typed
    def __init__(self, task_id: _Optional[str] = ..., channel: _Optional[str] = ..., value: _Optional[_Union[Typed, _Mapping]] = ...) -> None: ...

class Checkpoint(_message.Message):
    __slots__ = ("fields", "channel_values")
    class ChannelValuesEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: Typed
        def __init__(self, key: _Optional[str] = ..., value: _Optional[_Union[Typed, _Mapping]] = ...) -> None: ...
    FIELDS_FIELD_NUMBER: _ClassVar[int]
    CHANNEL_VALUES_FIELD_NUMBER: _ClassVar[int]
    fields: Typed
    channel_values: _containers.MessageMap[str, Typed]
    def __init__(self, fields: _Optional[_Union[Typed, _Mapping]] = ..., channel_values: _Optional[_Mapping[str, Typed]] = ...) -> None: ...

class CheckpointTuple(_message.Message):
    __slots__ = ("config", "checkpoint", "metadata", "parent_config", "pending_writes")
    CONFIG_FIELD_NUMBER: _ClassVar[int]
    CHECKPOINT_FIELD_NUMBER: _ClassVar[int]
    METADATA_FIELD_NUMBER: _ClassVar[int]
    PARENT_CONFIG_FIELD_NUMBER: _ClassVar[int]
    PENDING_WRITES_FIELD_NUMBER: _ClassVar[int]
    config: Config
    checkpoint: Checkpoint
    metadata: Typed
    parent_config: Config
    pending_writes: _containers.RepeatedCompositeFieldContainer[PendingWrite]
    def __init__(self, config: _Optional[_Union[Config, _Mapping]] = ..., checkpoint: _Optional[_Union[Checkpoint, _Mapping]] = ..., metadata: _Optional[_Union[Typed, _Mapping]] = ..., parent_config: _Optional[_Union[Config, _Mapping]] = ..., pending_writes: _Optional[_Iterable[_Union[PendingWrite, _Mapping]]] = ...) -> None: ...

class Fence(_message.Message):
    __slots__ = ("token",)
    TOKEN_FIELD_NUMBER: _ClassVar[int]
    token: int
    def __init__(self, token: _Optional[int] = ...) -> None: ...

class Empty(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class HandshakeRequest(_message.Message):
    __slots__ = ("protocol_version", "client")
    PROTOCOL_VERSION_FIELD_NUMBER: _ClassVar[int]
    CLIENT_FIELD_NUMBER: _ClassVar[int]
    protocol_version: int
    client: str
    def __init__(self, protocol_version: _Optional[int] = ..., client: _Optional[str] = ...) -> None: ...

class HandshakeResponse(_message.Message):
    __slots__ = ("protocol_version", "server_version", "tenant")
    PROTOCOL_VERSION_FIELD_NUMBER: _ClassVar[int]
    SERVER_VERSION_FIELD_NUMBER: _ClassVar[int]
    TENANT_FIELD_NUMBER: _ClassVar[int]
    protocol_version: int
    server_version: str
    tenant: str
    def __init__(self, protocol_version: _Optional[int] = ..., server_version: _Optional[str] = ..., tenant: _Optional[str] = ...) -> None: ...

class GetTupleRequest(_message.Message):
    __slots__ = ("config",)
    CONFIG_FIELD_NUMBER: _ClassVar[int]
    config: Config
    def __init__(self, config: _Optional[_Union[Config, _Mapping]] = ...) -> None: ...

class GetTupleResponse(_message.Message):
    __slots__ = ("tuple",)
    TUPLE_FIELD_NUMBER: _ClassVar[int]
    tuple: CheckpointTuple
    def __init__(self, tuple: _Optional[_Union[CheckpointTuple, _Mapping]] = ...) -> None: ...

class ListRequest(_message.Message):
    __slots__ = ("config", "filter", "before", "limit")
    CONFIG_FIELD_NUMBER: _ClassVar[int]
    FILTER_FIELD_NUMBER: _ClassVar[int]
    BEFORE_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    config: Config
    filter: Typed
    before: Config
    limit: int
    def __init__(self, config: _Optional[_Union[Config, _Mapping]] = ..., filter: _Optional[_Union[Typed, _Mapping]] = ..., before: _Optional[_Union[Config, _Mapping]] = ..., limit: _Optional[int] = ...) -> None: ...

class PutRequest(_message.Message):
    __slots__ = ("config", "checkpoint", "metadata", "new_versions", "fence", "run_config", "writes")
    CONFIG_FIELD_NUMBER: _ClassVar[int]
    CHECKPOINT_FIELD_NUMBER: _ClassVar[int]
    METADATA_FIELD_NUMBER: _ClassVar[int]
    NEW_VERSIONS_FIELD_NUMBER: _ClassVar[int]
    FENCE_FIELD_NUMBER: _ClassVar[int]
    RUN_CONFIG_FIELD_NUMBER: _ClassVar[int]
    WRITES_FIELD_NUMBER: _ClassVar[int]
    config: Config
    checkpoint: Checkpoint
    metadata: Typed
    new_versions: Typed
    fence: Fence
    run_config: Typed
    writes: _containers.RepeatedCompositeFieldContainer[PutWritesRequest]
    def __init__(self, config: _Optional[_Union[Config, _Mapping]] = ..., checkpoint: _Optional[_Union[Checkpoint, _Mapping]] = ..., metadata: _Optional[_Union[Typed, _Mapping]] = ..., new_versions: _Optional[_Union[Typed, _Mapping]] = ..., fence: _Optional[_Union[Fence, _Mapping]] = ..., run_config: _Optional[_Union[Typed, _Mapping]] = ..., writes: _Optional[_Iterable[_Union[PutWritesRequest, _Mapping]]] = ...) -> None: ...

class PutResponse(_message.Message):
    __slots__ = ("config",)
    CONFIG_FIELD_NUMBER: _ClassVar[int]
    config: Config
    def __init__(self, config: _Optional[_Union[Config, _Mapping]] = ...) -> None: ...

class Write(_message.Message):
    __slots__ = ("channel", "value", "error_type", "error_message")
    CHANNEL_FIELD_NUMBER: _ClassVar[int]
    VALUE_FIELD_NUMBER: _ClassVar[int]
    ERROR_TYPE_FIELD_NUMBER: _ClassVar[int]
    ERROR_MESSAGE_FIELD_NUMBER: _ClassVar[int]
    channel: str
    value: Typed
    error_type: str
    error_message: str
    def __init__(self, channel: _Optional[str] = ..., value: _Optional[_Union[Typed, _Mapping]] = ..., error_type: _Optional[str] = ..., error_message: _Optional[str] = ...) -> None: ...

class PutWritesRequest(_message.Message):
    __slots__ = ("config", "writes", "task_id", "task_path", "fence", "run_config")
    CONFIG_FIELD_NUMBER: _ClassVar[int]
    WRITES_FIELD_NUMBER: _ClassVar[int]
    TASK_ID_FIELD_NUMBER: _ClassVar[int]
    TASK_PATH_FIELD_NUMBER: _ClassVar[int]
    FENCE_FIELD_NUMBER: _ClassVar[int]
    RUN_CONFIG_FIELD_NUMBER: _ClassVar[int]
    config: Config
    writes: _containers.RepeatedCompositeFieldContainer[Write]
    task_id: str
    task_path: str
    fence: Fence
    run_config: Typed
    def __init__(self, config: _Optional[_Union[Config, _Mapping]] = ..., writes: _Optional[_Iterable[_Union[Write, _Mapping]]] = ..., task_id: _Optional[str] = ..., task_path: _Optional[str] = ..., fence: _Optional[_Union[Fence, _Mapping]] = ..., run_config: _Optional[_Union[Typed, _Mapping]] = ...) -> None: ...

class DeleteThreadRequest(_message.Message):
    __slots__ = ("thread_id",)
    THREAD_ID_FIELD_NUMBER: _ClassVar[int]
    thread_id: str
    def __init__(self, thread_id: _Optional[str] = ...) -> None: ...

class DeleteForRunsRequest(_message.Message):
    __slots__ = ("run_ids",)
    RUN_IDS_FIELD_NUMBER: _ClassVar[int]
    run_ids: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, run_ids: _Optional[_Iterable[str]] = ...) -> None: ...

class CopyThreadRequest(_message.Message):
    __slots__ = ("source_thread_id", "target_thread_id")
    SOURCE_THREAD_ID_FIELD_NUMBER: _ClassVar[int]
    TARGET_THREAD_ID_FIELD_NUMBER: _ClassVar[int]
    source_thread_id: str
    target_thread_id: str
    def __init__(self, source_thread_id: _Optional[str] = ..., target_thread_id: _Optional[str] = ...) -> None: ...

class PruneRequest(_message.Message):
    __slots__ = ("thread_ids", "strategy")
    THREAD_IDS_FIELD_NUMBER: _ClassVar[int]
    STRATEGY_FIELD_NUMBER: _ClassVar[int]
    thread_ids: _containers.RepeatedScalarFieldContainer[str]
    strategy: str
    def __init__(self, thread_ids: _Optional[_Iterable[str]] = ..., strategy: _Optional[str] = ...) -> None: ...

class WaitDurableRequest(_message.Message):
    __slots__ = ("checkpoint_ids", "durability")
    CHECKPOINT_IDS_FIELD_NUMBER: _ClassVar[int]
    DURABILITY_FIELD_NUMBER: _ClassVar[int]
    checkpoint_ids: _containers.RepeatedScalarFieldContainer[str]
    durability: str
    def __init__(self, checkpoint_ids: _Optional[_Iterable[str]] = ..., durability: _Optional[str] = ...) -> None: ...

class WaitDurableResponse(_message.Message):
    __slots__ = ("durable",)
    DURABLE_FIELD_NUMBER: _ClassVar[int]
    durable: bool
    def __init__(self, durable: _Optional[bool] = ...) -> None: ...

class RecordActionsRequest(_message.Message):
    __slots__ = ("records",)
    RECORDS_FIELD_NUMBER: _ClassVar[int]
    records: _containers.RepeatedScalarFieldContainer[bytes]
    def __init__(self, records: _Optional[_Iterable[bytes]] = ...) -> None: ...

class BeginActionRequest(_message.Message):
    __slots__ = ("record",)
    RECORD_FIELD_NUMBER: _ClassVar[int]
    record: bytes
    def __init__(self, record: _Optional[bytes] = ...) -> None: ...

class CompleteActionRequest(_message.Message):
    __slots__ = ("thread_id", "action_id", "output_json")
    THREAD_ID_FIELD_NUMBER: _ClassVar[int]
    ACTION_ID_FIELD_NUMBER: _ClassVar[int]
    OUTPUT_JSON_FIELD_NUMBER: _ClassVar[int]
    thread_id: str
    action_id: str
    output_json: bytes
    def __init__(self, thread_id: _Optional[str] = ..., action_id: _Optional[str] = ..., output_json: _Optional[bytes] = ...) -> None: ...

class FailActionRequest(_message.Message):
    __slots__ = ("thread_id", "action_id", "error_type", "error_message")
    THREAD_ID_FIELD_NUMBER: _ClassVar[int]
    ACTION_ID_FIELD_NUMBER: _ClassVar[int]
    ERROR_TYPE_FIELD_NUMBER: _ClassVar[int]
    ERROR_MESSAGE_FIELD_NUMBER: _ClassVar[int]
    thread_id: str
    action_id: str
    error_type: str
    error_message: str
    def __init__(self, thread_id: _Optional[str] = ..., action_id: _Optional[str] = ..., error_type: _Optional[str] = ..., error_message: _Optional[str] = ...) -> None: ...

class ListActionsRequest(_message.Message):
    __slots__ = ("thread_id", "action_types", "statuses", "node", "since_step", "since_time", "run_id", "task_id", "limit")
    THREAD_ID_FIELD_NUMBER: _ClassVar[int]
    ACTION_TYPES_FIELD_NUMBER: _ClassVar[int]
    STATUSES_FIELD_NUMBER: _ClassVar[int]
    NODE_FIELD_NUMBER: _ClassVar[int]
    SINCE_STEP_FIELD_NUMBER: _ClassVar[int]
    SINCE_TIME_FIELD_NUMBER: _ClassVar[int]
    RUN_ID_FIELD_NUMBER: _ClassVar[int]
    TASK_ID_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    thread_id: str
    action_types: _containers.RepeatedScalarFieldContainer[str]
    statuses: _containers.RepeatedScalarFieldContainer[str]
    node: str
    since_step: int
    since_time: str
    run_id: str
    task_id: str
    limit: int
    def __init__(self, thread_id: _Optional[str] = ..., action_types: _Optional[_Iterable[str]] = ..., statuses: _Optional[_Iterable[str]] = ..., node: _Optional[str] = ..., since_step: _Optional[int] = ..., since_time: _Optional[str] = ..., run_id: _Optional[str] = ..., task_id: _Optional[str] = ..., limit: _Optional[int] = ...) -> None: ...

class ActionsResponse(_message.Message):
    __slots__ = ("records",)
    RECORDS_FIELD_NUMBER: _ClassVar[int]
    records: _containers.RepeatedScalarFieldContainer[bytes]
    def __init__(self, records: _Optional[_Iterable[bytes]] = ...) -> None: ...

class GetActionRequest(_message.Message):
    __slots__ = ("thread_id", "action_id")
    THREAD_ID_FIELD_NUMBER: _ClassVar[int]
    ACTION_ID_FIELD_NUMBER: _ClassVar[int]
    thread_id: str
    action_id: str
    def __init__(self, thread_id: _Optional[str] = ..., action_id: _Optional[str] = ...) -> None: ...

class LastActionRequest(_message.Message):
    __slots__ = ("thread_id", "statuses")
    THREAD_ID_FIELD_NUMBER: _ClassVar[int]
    STATUSES_FIELD_NUMBER: _ClassVar[int]
    thread_id: str
    statuses: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, thread_id: _Optional[str] = ..., statuses: _Optional[_Iterable[str]] = ...) -> None: ...

class ActionResponse(_message.Message):
    __slots__ = ("record",)
    RECORD_FIELD_NUMBER: _ClassVar[int]
    record: bytes
    def __init__(self, record: _Optional[bytes] = ...) -> None: ...

class ResolveActionRequest(_message.Message):
    __slots__ = ("thread_id", "action_id", "output_json", "retry", "note", "override")
    THREAD_ID_FIELD_NUMBER: _ClassVar[int]
    ACTION_ID_FIELD_NUMBER: _ClassVar[int]
    OUTPUT_JSON_FIELD_NUMBER: _ClassVar[int]
    RETRY_FIELD_NUMBER: _ClassVar[int]
    NOTE_FIELD_NUMBER: _ClassVar[int]
    OVERRIDE_FIELD_NUMBER: _ClassVar[int]
    thread_id: str
    action_id: str
    output_json: bytes
    retry: bool
    note: str
    override: bool
    def __init__(self, thread_id: _Optional[str] = ..., action_id: _Optional[str] = ..., output_json: _Optional[bytes] = ..., retry: _Optional[bool] = ..., note: _Optional[str] = ..., override: _Optional[bool] = ...) -> None: ...

class ArchiveThreadRequest(_message.Message):
    __slots__ = ("thread_id",)
    THREAD_ID_FIELD_NUMBER: _ClassVar[int]
    thread_id: str
    def __init__(self, thread_id: _Optional[str] = ...) -> None: ...

class ArchiveThreadResponse(_message.Message):
    __slots__ = ("archived", "url")
    ARCHIVED_FIELD_NUMBER: _ClassVar[int]
    URL_FIELD_NUMBER: _ClassVar[int]
    archived: bool
    url: str
    def __init__(self, archived: _Optional[bool] = ..., url: _Optional[str] = ...) -> None: ...

class AcquireLeaseRequest(_message.Message):
    __slots__ = ("thread_id", "holder", "ttl_seconds")
    THREAD_ID_FIELD_NUMBER: _ClassVar[int]
    HOLDER_FIELD_NUMBER: _ClassVar[int]
    TTL_SECONDS_FIELD_NUMBER: _ClassVar[int]
    thread_id: str
    holder: str
    ttl_seconds: float
    def __init__(self, thread_id: _Optional[str] = ..., holder: _Optional[str] = ..., ttl_seconds: _Optional[float] = ...) -> None: ...

class LeaseResponse(_message.Message):
    __slots__ = ("held", "token")
    HELD_FIELD_NUMBER: _ClassVar[int]
    TOKEN_FIELD_NUMBER: _ClassVar[int]
    held: bool
    token: int
    def __init__(self, held: _Optional[bool] = ..., token: _Optional[int] = ...) -> None: ...

class RenewLeaseRequest(_message.Message):
    __slots__ = ("thread_id", "holder", "token", "ttl_seconds")
    THREAD_ID_FIELD_NUMBER: _ClassVar[int]
    HOLDER_FIELD_NUMBER: _ClassVar[int]
    TOKEN_FIELD_NUMBER: _ClassVar[int]
    TTL_SECONDS_FIELD_NUMBER: _ClassVar[int]
    thread_id: str
    holder: str
    token: int
    ttl_seconds: float
    def __init__(self, thread_id: _Optional[str] = ..., holder: _Optional[str] = ..., token: _Optional[int] = ..., ttl_seconds: _Optional[float] = ...) -> None: ...

class ReleaseLeaseRequest(_message.Message):
    __slots__ = ("thread_id", "holder", "token")
    THREAD_ID_FIELD_NUMBER: _ClassVar[int]
    HOLDER_FIELD_NUMBER: _ClassVar[int]
    TOKEN_FIELD_NUMBER: _ClassVar[int]
    thread_id: str
    holder: str
    token: int
    def __init__(self, thread_id: _Optional[str] = ..., holder: _Optional[str] = ..., token: _Optional[int] = ...) -> None: ...
