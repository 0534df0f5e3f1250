/*
 * cddl_types.h - the generated types cbor-cddl (cddl_tool.c) and the fuzz
 * target decode_cbor_cddl (fuzz_cddl.c) run: the CBOR-first schemas of
 * tests/cbor/CMakeLists.txt, by their rule names. A fuzz input's first byte
 * picks one by its index here: new rows go at the end.
 */
#ifndef CBOR_CDDL_TYPES_H
#define CBOR_CDDL_TYPES_H

#include "cose.h"
#include "mapbstr.h"
#include "optional.h"
#include "pos.h"
#include "pet.h"
#include "rfc.h"
#include "senml.h"
#include "serial.h"
#include "serialenc.h"
#include "suit12.h"
#include "suit20.h"
#include "suit9.h"
#include "yaml.h"

static const struct cddl_type {
    const char *name;
    const aps_type *type;
} types[] = {
    { "COSE_Sign1_Tagged", &cose_cose_sign1_tagged_type },
    { "COSE_Sign_Tagged", &cose_cose_sign_tagged_type },
    { "COSE_Mac0_Tagged", &cose_cose_mac0_tagged_type },
    { "COSE_Encrypt0_Tagged", &cose_cose_encrypt0_tagged_type },
    { "COSE_Messages", &cose_cose_messages_type },
    { "COSE_Key", &cose_cose_key_type },
    { "header_map", &cose_header_map_type },
    { "empty_or_serialized_map", &cose_empty_or_serialized_map_type },
    { "Sig_structure", &cose_sig_structure_type },
    { "cfg", &optional_cfg_type },
    { "lwm2m_senml", &senml_lwm2m_senml_type },
    { "Upload", &serial_upload_type },
    { "reputation-object", &rfc_reputation_object_type },
    { "my_uri", &rfc_my_uri_type },
    { "my_breakfast", &rfc_my_breakfast_type },
    { "full-address", &rfc_full_address_type },
    { "audio_sample", &rfc_audio_sample_type },
    { "tcpflags", &rfc_tcpflags_type },
    { "signed-timestamp", &rfc_signed_timestamp_type },
    { "timestamp-payload", &rfc_timestamp_payload_type },
    { "header", &rfc_header_type },
    { "either", &rfc_either_type },
    { "Geography", &rfc_geography_type },
    { "tagged-any", &rfc_tagged_any_type },
    { "log", &rfc_log_type },
    { "widths", &rfc_widths_type },
    { "Pet", &pet_pet_type },
    { "MultiList", &serialenc_multi_list_type },
    { "List", &serialenc_list_type },
    { "map", &mapbstr_map_type },
    { "Yaml_compatibility_example", &yaml_yaml_compatibility_example_type },
    { "SUIT_Envelope", &suit9_suit_envelope_type },
    { "SUIT_Manifest", &suit9_suit_manifest_type },
    { "SUIT_Command_Sequence", &suit9_suit_command_sequence_type },
    { "SUIT_Common_Sequence", &suit9_suit_common_sequence_type },
    { "SUIT_Digest", &suit9_suit_digest_type },
    { "SUIT12_Envelope_Tagged", &suit12_suit_envelope_tagged_type },
    { "SUIT12_Manifest", &suit12_suit_manifest_type },
    { "SUIT12_Command_Sequence", &suit12_suit_command_sequence_type },
    { "SUIT12_Common_Sequence", &suit12_suit_common_sequence_type },
    { "SUIT20_Envelope_Tagged", &suit20_suit_envelope_tagged_type },
    { "SUIT20_Authentication", &suit20_suit_authentication_type },
    { "SUIT20_Manifest", &suit20_suit_manifest_type },
    { "SUIT20_Command_Sequence", &suit20_suit_command_sequence_type },
    { "overlap", &pos_overlap_type },
    { "sig-like", &pos_sig_like_type },
    { "pairs", &pos_pairs_type },
    { "choice", &pos_choice_type },
    { "nested", &pos_nested_type },
};

#endif
