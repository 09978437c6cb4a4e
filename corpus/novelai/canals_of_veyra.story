{
  "storyContainerVersion": 1,
  "metadata": {
    "storyMetadataVersion": 1,
    "id": "1a2b3c4d-0000-4e5f-8a9b-0c1d2e3f4a5b",
    "remoteId": "",
    "title": "Canals of Veyra",
    "description": "",
    "textPreview": "The water was black...",
    "favorite": false,
    "tags": [],
    "createdAt": 1717000000000,
    "lastUpdatedAt": 1717003600000,
    "isModified": false,
    "hasDocument": true
  },
  "content": {
    "storyContentVersion": 6,
    "settings": {
      "parameters": {
        "temperature": 1.0
      },
      "preset": "default",
      "model": "kayra-v1"
    },
    "document": "BASE64-DOCUMENT-PLACEHOLDER-NOT-DECODED",
    "context": [
      {
        "text": "",
        "contextConfig": {
          "budgetPriority": 800
        }
      }
    ],
    "lorebook": {
      "lorebookVersion": 6,
      "entries": [
        {
          "text": "Veyra is a canal city built on the ribs of a sunken leviathan.",
          "contextConfig": {
            "prefix": "",
            "suffix": "\n",
            "tokenBudget": 1,
            "reservedTokens": 0,
            "budgetPriority": 400,
            "trimDirection": "trimBottom",
            "insertionType": "newline",
            "maximumTrimType": "sentence",
            "insertionPosition": -1
          },
          "lastUpdatedAt": 1717000061000,
          "displayName": "Veyra (city)",
          "id": "9f1c0001-7d2e-4b3a-8c5d-6e7f8091a2b3",
          "keys": [
            "Veyra",
            "/\\bcanal[- ]city\\b/i",
            "leviathan"
          ],
          "searchRange": 2400,
          "enabled": true,
          "forceActivation": false,
          "keyRelative": false,
          "nonStoryActivatable": false,
          "category": "0b7e3c52-6a1f-4f0e-8f3c-1d2a4b5c6d70",
          "loreBiasGroups": [
            {
              "phrases": [],
              "ensureSequenceFinish": false,
              "generateOnce": true,
              "bias": 0,
              "enabled": true,
              "whenInactive": false
            }
          ]
        },
        {
          "text": "The Tide Council meets at low water; its nine seats are inherited.",
          "contextConfig": {
            "prefix": "",
            "suffix": "\n",
            "tokenBudget": 1,
            "reservedTokens": 0,
            "budgetPriority": 400,
            "trimDirection": "trimBottom",
            "insertionType": "newline",
            "maximumTrimType": "sentence",
            "insertionPosition": -1
          },
          "lastUpdatedAt": 1717000122000,
          "displayName": "Tide Council",
          "id": "9f1c0002-7d2e-4b3a-8c5d-6e7f8091a2b3",
          "keys": [
            "/Tide ?Council/",
            "council",
            "nine seats"
          ],
          "searchRange": 1000,
          "enabled": true,
          "forceActivation": false,
          "keyRelative": false,
          "nonStoryActivatable": false,
          "category": "5d1f8a90-2c3b-4e6d-9a7b-8c9d0e1f2a31",
          "loreBiasGroups": [
            {
              "phrases": [
                "Tide Council",
                "low water"
              ],
              "ensure_sequence_finish": true,
              "generate_once": false,
              "bias": 0.35,
              "enabled": true,
              "whenInactive": false
            }
          ]
        }
      ],
      "settings": {
        "orderByKeyLocations": true
      },
      "categories": [
        {
          "name": "Places",
          "id": "0b7e3c52-6a1f-4f0e-8f3c-1d2a4b5c6d70",
          "enabled": true,
          "createSubcontext": true,
          "subcontextSettings": {
            "text": "",
            "contextConfig": {
              "prefix": "",
              "suffix": "\n\n",
              "tokenBudget": 0.2,
              "reservedTokens": 64,
              "budgetPriority": -200,
              "trimDirection": "trimBottom",
              "insertionType": "newline",
              "maximumTrimType": "sentence",
              "insertionPosition": -1
            },
            "lastUpdatedAt": 1717000000000,
            "displayName": "Places subcontext",
            "id": "",
            "keys": [],
            "searchRange": 1000,
            "enabled": true,
            "forceActivation": false,
            "keyRelative": false,
            "nonStoryActivatable": false,
            "category": "",
            "loreBiasGroups": []
          },
          "useCategoryDefaults": false,
          "categoryDefaults": {
            "text": "",
            "contextConfig": {
              "prefix": "",
              "suffix": "\n",
              "tokenBudget": 1,
              "reservedTokens": 0,
              "budgetPriority": 400,
              "trimDirection": "trimBottom",
              "insertionType": "newline",
              "maximumTrimType": "sentence",
              "insertionPosition": -1
            },
            "displayName": "New Lorebook Entry",
            "keys": [],
            "searchRange": 1000,
            "enabled": true
          },
          "categoryBiasGroups": [
            {
              "phrases": [
                "canal"
              ],
              "ensureSequenceFinish": false,
              "generateOnce": true,
              "bias": 0.1,
              "enabled": true,
              "whenInactive": false
            }
          ],
          "open": false
        },
        {
          "name": "People",
          "id": "5d1f8a90-2c3b-4e6d-9a7b-8c9d0e1f2a31",
          "enabled": true,
          "createSubcontext": false,
          "subcontextSettings": {
            "contextConfig": {
              "prefix": "",
              "suffix": "\n",
              "tokenBudget": 1,
              "reservedTokens": 0,
              "budgetPriority": -100,
              "trimDirection": "trimBottom",
              "insertionType": "newline",
              "maximumTrimType": "sentence",
              "insertionPosition": -1
            }
          },
          "useCategoryDefaults": true,
          "categoryDefaults": {
            "text": "",
            "contextConfig": {
              "prefix": "",
              "suffix": "\n",
              "tokenBudget": 1,
              "reservedTokens": 0,
              "budgetPriority": 300,
              "trimDirection": "trimBottom",
              "insertionType": "newline",
              "maximumTrimType": "sentence",
              "insertionPosition": -1
            },
            "searchRange": 1500,
            "keys": [],
            "nonStoryActivatable": true
          },
          "categoryBiasGroups": [],
          "open": true
        }
      ]
    },
    "storyContextConfig": {
      "prefix": "",
      "suffix": "",
      "tokenBudget": 1,
      "budgetPriority": 0
    },
    "ephemeralContext": [],
    "contextDefaults": {
      "ephemeralDefaults": [],
      "loreDefaults": []
    },
    "settingsDirty": false,
    "didGenerate": true,
    "phraseBiasGroups": [],
    "bannedSequenceGroups": []
  }
}
